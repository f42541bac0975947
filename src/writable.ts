/**
 * A read-only record while it is still being built: optional fields are added one by one (absent,
 * not `undefined`, so traces and results stay exact), then it is handed out as `T`.
 */
export type Writable<T> = { -readonly [Key in keyof T]: T[Key] };
