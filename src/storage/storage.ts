/**
 * Where every byte of the service and the fleet is kept: uploads, job inputs, records, reports
 * (JSON and HTML), previews, mockups and fixed files. One small interface, two backends: a local
 * folder (today's data folder, the default: storage/local.ts) and S3-compatible object storage
 * (storage/s3.ts). Keys are `/`-separated names relative to the store's root, exactly the paths
 * the data folder has always had (`checks/<id>/record.json`).
 *
 * Rules every backend keeps: a put is whole or absent (no reader ever sees part of an object); a
 * failure of the store is a {@link StorageUnavailableError} (a 503 with a code, and a retry for a
 * run), never a wrong answer.
 */
import type { Readable } from 'node:stream';

/** What is known of an object without reading it. */
export interface ObjectInfo {
  size: number;
  /** Last written, in ms since the epoch. */
  modifiedMs: number;
}

export interface ObjectStorage {
  /** `s3://bucket/prefix` or the folder: for logs and /health. */
  readonly description: string;
  /** The local folder behind a key when the backend is a folder (files are served straight from it); null for object storage. */
  localPath(key: string): string | null;
  /** Writes a whole object; a reader sees the old object or the whole new one. */
  put(key: string, body: string | Uint8Array): Promise<void>;
  /** Writes a local file as an object (streamed; multipart for large ones), whole or not at all. */
  putFile(key: string, file: string): Promise<void>;
  /**
   * Writes an object only if no object has the key: write-once. False when one was there. Where
   * the store cannot refuse a second writer itself, callers hold a lock (see docs/fleet.md).
   */
  create(key: string, body: string | Uint8Array): Promise<boolean>;
  /**
   * Copies an object to another key inside the store (object storage copies it server-side: no
   * byte passes through this process), whole or not at all.
   * @returns false when `from` does not exist (nothing was written)
   */
  copy(from: string, to: string): Promise<boolean>;
  /** The object as a stream, or null when there is none. */
  get(key: string): Promise<Readable | null>;
  /** The object's bytes, or null. */
  getBytes(key: string): Promise<Buffer | null>;
  /** The object's text (UTF-8), or null. */
  getText(key: string): Promise<string | null>;
  head(key: string): Promise<ObjectInfo | null>;
  /** The keys under `prefix` (a folder's name ending in `/`), recursively, sorted. */
  list(prefix: string): Promise<string[]>;
  /**
   * The names directly under `prefix` (a folder's name ending in `/`): objects and sub-folders, one
   * level, sorted. A local folder may keep an emptied sub-folder; object storage has none.
   */
  children(prefix: string): Promise<string[]>;
  /** Removes an object (nothing when it is absent). */
  delete(key: string): Promise<void>;
  /** Removes every object under `prefix` (ending in `/`). */
  deletePrefix(prefix: string): Promise<void>;
  /** A URL that reads the object for `seconds` without credentials; null when the backend has none. */
  presign(key: string, seconds: number): Promise<string | null>;
  /** Whether the store can be written now: a probe object written and removed. */
  probe(): Promise<{ ok: boolean; detail?: string }>;
}
