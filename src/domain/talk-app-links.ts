/**
 * Links that open a conversation in Nextcloud Talk's mobile apps (the page behind a
 * notification's `/index.php/call/{token}` link, docs/talk-apps.md). The two apps read different
 * shapes of the `nextcloudtalk:` scheme:
 * - Talk Android's DeepLinkHandler: `nextcloudtalk://[user@]host[:port]/[base/]call/{token}`;
 * - Talk iOS: `nextcloudtalk://open-conversation?server={server URL}&withRoomToken={token}`.
 * Pure: the server's public address and a token that already matched TOKEN_PATTERN in, links out.
 */

export interface TalkAppLinks {
  android: string;
  ios: string;
}

export function talkAppLinks(serverUrl: string, token: string): TalkAppLinks {
  const url = new URL(serverUrl);
  const base = url.pathname.replace(/\/+$/, '');
  const server = `${url.protocol}//${url.host}${base}`;
  return {
    android: `nextcloudtalk://${url.host}${base}/call/${encodeURIComponent(token)}`,
    ios: `nextcloudtalk://open-conversation?server=${encodeURIComponent(server)}&withRoomToken=${encodeURIComponent(token)}`,
  };
}
