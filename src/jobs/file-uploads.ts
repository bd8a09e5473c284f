/**
 * Unfinished chunked uploads (docs/files.md; Nextcloud removes them after 24 hours): their
 * chunks are deleted from the blob store and the database.
 */
import type { JobDef } from './runner.js';

export const fileUploadsJob: JobDef = {
  name: 'file-uploads',
  intervalSeconds: 3600,
  description: 'remove chunked uploads left unfinished for a day',
  async run(services, now) {
    return `${await services.chunkedUploads.removeStale(now)} removed`;
  },
};
