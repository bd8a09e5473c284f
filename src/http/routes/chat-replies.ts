/**
 * How the chat endpoints answer with messages (docs/reference/chat.md#receiving, docs/reference/chat.md#sending): a page of them
 * (304 when nothing came) or one message, with the chat headers. Shared by the chat and the
 * shared-objects routes.
 */
import { formatChatMessage, formatChatMessages } from '../../presenters/chat-message.js';
import type { MessagePage } from '../../services/chat/chat-api.js';
import type { ProxiedAnswer } from '../../services/federation/proxy.js';
import { OcsReply, RawReply } from '../ocs/route.js';

/** X-Chat-Last-Given and X-Chat-Last-Common-Read, where the page has them. */
function headersOf(page: MessagePage): Record<string, string> {
  const h: Record<string, string> = {};
  if (page.lastGiven !== undefined) h['X-Chat-Last-Given'] = String(page.lastGiven);
  if (page.commonRead !== undefined) h['X-Chat-Last-Common-Read'] = String(page.commonRead);
  return h;
}

/** A list answer: 304 without a body when nothing was fetched (docs/reference/chat.md#receiving), else 200 with the headers. */
export function listReply(page: MessagePage | ProxiedAnswer): OcsReply | RawReply {
  if ('proxied' in page) return proxiedReply(page);
  if (page.notModified) return new RawReply('', 'text/plain', 304);
  return new OcsReply(formatChatMessages(page.rows, page.env), 200, headersOf(page));
}

/** One message (send, share, edit/delete's system message) with its parent. */
export function oneReply(page: MessagePage | ProxiedAnswer, status: number): OcsReply | RawReply {
  if ('proxied' in page) return proxiedReply(page);
  const row = page.rows[0];
  return new OcsReply(row ? formatChatMessage(row, page.env) : null, status, headersOf(page));
}

/** Whether a service answered with the host's answer to a proxied request. */
export const isProxied = (r: unknown): r is ProxiedAnswer => typeof r === 'object' && r !== null && (r as { proxied?: unknown }).proxied === true;

/** The host's answer to a proxied request (docs/reference/federation.md#proxied-requests), as it came. */
export function proxiedReply(answer: ProxiedAnswer): OcsReply | RawReply {
  if (answer.status === 304) return new RawReply('', 'text/plain', 304);
  return new OcsReply(answer.data, answer.status, answer.headers);
}
