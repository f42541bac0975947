import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { testAttachmentStore } from './attachment-store-contract.js';

testAttachmentStore('MemoryAttachmentStore', async () => new MemoryAttachmentStore());
