/** What the chat's send and receive take (docs/reference/chat.md#sending, docs/reference/chat.md#receiving). */
export interface ReceiveInput {
  lookIntoFuture: boolean;
  limit: number;
  lastKnownMessageId: number;
  lastCommonReadId: number;
  timeoutSeconds: number;
  setReadMarker: boolean;
  includeLastKnown: boolean;
  /** The moved marker also reads the mention notifications up to it (0: kept, capability chat-keep-notifications). */
  markNotificationsAsRead: boolean;
}

export interface SendInput {
  message: string;
  actorDisplayName: string;
  replyTo: number;
  referenceId: string;
  silent: boolean;
}
