/**
 * User and guest avatars as Nextcloud serves them (server `AvatarController`,
 * `GuestAvatarController`, `lib/private/Avatar/Avatar.php`): an uploaded PNG or JPEG (square,
 * at most 20 MiB) for a user, else the generated one — initials in the display name's colour,
 * Nextcloud's palette and blend, light or dark. Sizes are 64 (asked ≤ 64) or 512, as Nextcloud
 * rounds them. Unknown users: 404.
 *
 * Uploaded images are decoded and re-encoded at most 512 pixels a side (Nextcloud scales them to
 * the size asked; Parley serves the stored one for both sizes). Generated ones are PNG rendered
 * with the bundled Noto Sans, as Nextcloud renders them.
 */
import { createHash } from 'node:crypto';
import type { UserAvatarsRepository } from '../../db/repositories/user-avatars.js';
import { nameAvatar } from '../../domain/avatar-svg.js';
import { notFound } from '../../domain/errors.js';
import { randomString } from '../../domain/passwords.js';
import { nowSeconds } from '../../domain/time.js';
import { squareImage, type AvatarUpload } from '../conversations/avatars.js';
import { svgToPng } from '../images/rasterise.js';
import type { DirectoryService } from './directory.js';

export interface UserAvatarImage {
  body: Buffer | string;
  contentType: string;
  etag: string;
  /** An uploaded image (X-NC-IsCustomAvatar: 1). */
  custom: boolean;
  /** Unix seconds of the upload (Last-Modified), for uploaded images. */
  modified?: number;
}

const VERSION_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Nextcloud's rounding of the requested size: up to 64 → 64, anything larger → 512. */
export function avatarSize(requested: number): 64 | 512 {
  return requested <= 64 ? 64 : 512;
}

async function generated(displayName: string, size: number, dark: boolean): Promise<UserAvatarImage> {
  const svg = nameAvatar(displayName, size, dark).svg;
  return { body: await svgToPng(svg), contentType: 'image/png', etag: `"${createHash('sha1').update(svg).digest('hex').slice(0, 32)}"`, custom: false };
}

export class UserAvatarService {
  constructor(
    private readonly repo: UserAvatarsRepository,
    private readonly directory: DirectoryService,
  ) {}

  /** A deleted user's avatar goes with them (subscribed to `user.deleting`). */
  async forget(userId: string): Promise<void> {
    await this.repo.remove(userId);
  }

  /** `GET /avatar/{userId}/{size}[/dark]`: 404 `notFound('user')` for an unknown user. */
  async image(userId: string, size: number, dark: boolean): Promise<UserAvatarImage> {
    const user = userId === '' ? undefined : await this.directory.users.find(userId);
    if (!user) throw notFound('user', 'No such user');
    const stored = await this.repo.find(user.id);
    if (stored) return { body: stored.data, contentType: stored.content_type, etag: `"${stored.version}"`, custom: true, modified: Number(stored.updated_at) };
    return generated(user.display_name || user.id, avatarSize(size), dark);
  }

  /** `GET /avatar/guest/{name}/{size}[/dark]`: always the generated avatar of that name. */
  guestImage(name: string, size: number, dark: boolean): Promise<UserAvatarImage> {
    return generated(name, avatarSize(size), dark);
  }

  /**
   * `POST /avatar` for the caller: 400 `file` (none or empty), `size` (over 20 MiB),
   * `mimetype` (not PNG/JPEG), `image` (broken or too many pixels), `square` (not square).
   */
  async upload(userId: string, file: AvatarUpload | undefined): Promise<void> {
    const { data, contentType } = await squareImage(file);
    await this.repo.save({ user_id: userId, version: randomString(16, VERSION_ALPHABET), content_type: contentType, data, updated_at: nowSeconds() });
  }

  /** `DELETE /avatar`: back to the generated avatar (no-op without an upload). */
  async remove(userId: string): Promise<void> {
    await this.repo.remove(userId);
  }
}
