/**
 * Unfinished chunked uploads (docs/files.md; Nextcloud removes them after 24 hours): their
 * chunks are deleted from the blob store and the database. Also sweeps favourite marks of files
 * that were deleted since.
 */
import type { JobDef } from './runner.js';

export const fileUploadsJob: JobDef = {
  name: 'file-uploads',
  intervalSeconds: 3600,
  description: 'remove chunked uploads left unfinished for a day, and favourite marks of deleted files',
  async run(services, now) {
    const uploads = await services.chunkedUploads.removeStale(now);
    const marks = await services.fileFavorites.sweep();
    return `${uploads} removed${marks ? `, and ${marks} favourite marks of deleted files` : ''}`;
  },
};
