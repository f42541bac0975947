import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ListResourcesRequestSchema,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * A request (read, listing, subscribe) the test holds at the server: `started` once the server
 * has it, `release()` to answer.
 */
export interface HeldRead {
  readonly started: Promise<void>;
  release(): void;
}

/**
 * A real MCP server (the SDK's low-level Server, in-process) whose contents, timing and
 * notifications a test controls: change a resource's contents, hold a read, a listing or a
 * subscribe at the server, make reads hang, send `updated` / `list_changed` on every session.
 */
export function startControlledServer(initial: Readonly<Record<string, ReadResourceResult['contents']>>) {
  const contents = new Map(Object.entries(initial));
  const sessions: Server[] = [];
  const reads: string[] = [];
  const holds = new Map<string, { started: () => void; released: Promise<void> }[]>();
  const hanging = new Set<string>();
  const never = new Promise<never>(() => {});
  const annotations = new Map<string, Record<string, unknown>>();
  let lists = 0;
  let listsFail = false;
  let subscribesFail = false;
  const subscriptionRequests: string[] = [];
  const listHolds: { started: () => void; released: Promise<void> }[] = [];
  const subscribeHolds = new Map<string, { started: () => void; released: Promise<void> }[]>();

  const createSession = () => {
    const server = new Server(
      { name: 'controlled', version: '1.0.0' },
      { capabilities: { resources: { subscribe: true, listChanged: true } } },
    );
    server.setRequestHandler(ListResourcesRequestSchema, async () => {
      lists += 1;
      // The listing as it was when asked: a held listing answers with what it saw.
      const resources = [...contents.keys()].map((uri) => ({
        uri,
        name: uri,
        ...(annotations.has(uri) && { annotations: annotations.get(uri) }),
      }));
      const hold = listHolds.shift();
      if (hold) {
        hold.started();
        await hold.released;
      }
      if (listsFail) throw new Error('the listing is broken');
      return { resources };
    });
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      const { uri } = request.params;
      reads.push(uri);
      // The contents as they were when the read was asked: a held read answers with what it saw.
      const answer = contents.get(uri) ?? [];
      const hold = holds.get(uri)?.shift();
      if (hold) {
        hold.started();
        await hold.released;
      }
      if (hanging.has(uri)) await never;
      return { contents: answer };
    });
    server.setRequestHandler(SubscribeRequestSchema, async (request) => {
      subscriptionRequests.push(`subscribe ${request.params.uri}`);
      const hold = subscribeHolds.get(request.params.uri)?.shift();
      if (hold) {
        hold.started();
        await hold.released;
      }
      if (subscribesFail) throw new Error('subscriptions are broken');
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
      subscriptionRequests.push(`unsubscribe ${request.params.uri}`);
      if (subscribesFail) throw new Error('subscriptions are broken');
      return {};
    });
    sessions.push(server);
    return server;
  };

  return {
    serverConfig: {
      type: 'transport' as const,
      createTransport: async () => {
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        await createSession().connect(serverSide);
        return clientSide;
      },
    },
    /** resources/read requests for `uri` (or all) so far. */
    readCount: (uri?: string) => reads.filter((read) => uri === undefined || read === uri).length,
    setText(uri: string, text: string, mimeType = 'text/plain') {
      contents.set(uri, [{ uri, mimeType, text }]);
    },
    /** The next read of `uri` waits at the server until released. */
    holdNextRead(uri: string): HeldRead {
      const hold = createHold();
      holds.set(uri, [...(holds.get(uri) ?? []), hold.entry]);
      return hold.handle;
    },
    /** resources/list requests so far. */
    listCount: () => lists,
    /** What the listing says of `uri` from now on (`annotations`: priority, audience …). */
    setAnnotations(uri: string, value: Record<string, unknown>) {
      annotations.set(uri, value);
    },
    /** Every later resources/list fails (a JSON-RPC error) while `broken`. */
    breakLists(broken = true) {
      listsFail = broken;
    },
    /** resources/subscribe and resources/unsubscribe requests so far, in order: `subscribe <uri>`. */
    subscriptionRequests: () => [...subscriptionRequests],
    /** Every later resources/subscribe and resources/unsubscribe fails (a JSON-RPC error) while `broken`. */
    breakSubscribes(broken = true) {
      subscribesFail = broken;
    },
    /** The next resources/list waits at the server until released. */
    holdNextList(): HeldRead {
      const hold = createHold();
      listHolds.push(hold.entry);
      return hold.handle;
    },
    /** The next resources/subscribe of `uri` waits at the server until released. */
    holdNextSubscribe(uri: string): HeldRead {
      const hold = createHold();
      subscribeHolds.set(uri, [...(subscribeHolds.get(uri) ?? []), hold.entry]);
      return hold.handle;
    },
    /** Every later read of `uri` never answers. */
    hang(uri: string) {
      hanging.add(uri);
    },
    notifyUpdated: (uri: string) =>
      Promise.all(sessions.map((server) => server.sendResourceUpdated({ uri }))),
    notifyListChanged: () => Promise.all(sessions.map((server) => server.sendResourceListChanged())),
    close: () => Promise.all(sessions.map((server) => server.close())),
  };
}

export type ControlledServer = ReturnType<typeof startControlledServer>;

// --- Internal helpers ---

/** A request held at the server: the server's side (`entry`) and the test's (`handle`). */
function createHold() {
  let started: () => void = () => {};
  let release: () => void = () => {};
  const startedPromise = new Promise<void>((resolve) => {
    started = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { entry: { started, released }, handle: { started: startedPromise, release } };
}
