/**
 * How the chat endpoints answer with messages (docs/reference/chat.md#receiving, docs/reference/chat.md#sending): a page of them
 * (304 when nothing came) or one message, with the chat headers. Shared by the chat and the
 * shared-objects routes.
 */
import { formatChatMessage, formatChatMessages } from '../../presenters/chat-message.js';
import type { MessagePage } from '../../services/chat/chat-api.js';
import { OcsReply, RawReply } from '../ocs/route.js';

/** X-Chat-Last-Given and X-Chat-Last-Common-Read, where the page has them. */
function headersOf(page: MessagePage): Record<string, string> {
  const h: Record<string, string> = {};
  if (page.lastGiven !== undefined) h['X-Chat-Last-Given'] = String(page.lastGiven);
  if (page.commonRead !== undefined) h['X-Chat-Last-Common-Read'] = String(page.commonRead);
  return h;
}

/** A list answer: 304 without a body when nothing was fetched (docs/reference/chat.md#receiving), else 200 with the headers. */
export function listReply(page: MessagePage): OcsReply | RawReply {
  if (page.notModified) return new RawReply('', 'text/plain', 304);
  return new OcsReply(formatChatMessages(page.rows, page.env), 200, headersOf(page));
}

/** One message (send, share, edit/delete's system message) with its parent. */
export function oneReply(page: MessagePage, status: number): OcsReply {
  const row = page.rows[0];
  return new OcsReply(row ? formatChatMessage(row, page.env) : null, status, headersOf(page));
}
