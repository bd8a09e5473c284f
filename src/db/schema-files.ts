/** The tables of users' files and their shares into conversations (docs/files.md), part of `Database` (schema.ts). */
import type { Generated } from 'kysely';

/** A file or folder of a user's tree (migration 0800; docs/files.md). */
export interface FilesTable {
  id: Generated<number>;
  owner: string;
  path: string;
  parent: string | null;
  name: string;
  is_dir: number;
  size: number;
  mimetype: string;
  etag: string;
  mtime: number;
  width: number | null;
  height: number | null;
  blob: string | null;
}

/** An unfinished chunked upload (migration 0801). */
export interface FileUploadsTable {
  id: Generated<number>;
  owner: string;
  upload_id: string;
  destination: string;
  created_at: number;
  /** The upload's assembly (blob-store key; '' before the first append), migration 0950. */
  assembly: Generated<string>;
  /** Bytes of the assembly written, through chunk `assembled_through`. */
  assembly_size: Generated<number>;
  assembled_through: Generated<number>;
  /** Unix time a PUT or the MOVE took the assembly (0: free). */
  appending: Generated<number>;
}

/** One received chunk of an upload (migration 0801). */
export interface FileUploadChunksTable {
  upload: number;
  number: number;
  /** '' when the chunk's bytes are in the upload's assembly, at `assembly_offset`. */
  blob: string;
  size: number;
  assembly_offset: number | null;
}

/** A file a user marked as favourite (migration 0881). */
export interface FileFavoritesTable {
  user_id: string;
  file_id: number;
}

/** A file shared into a conversation (migration 0830). */
export interface FileSharesTable {
  id: Generated<number>;
  file_id: number;
  owner: string;
  room_id: number;
  message_id: number;
  token: string;
  created_at: number;
  expires_at: number;
}

/** Where a received share appears in a user's tree (migration 0830). */
export interface FileShareTargetsTable {
  share_id: number;
  user_id: string;
  path: string;
  parent: string;
}
