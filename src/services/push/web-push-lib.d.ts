/** The part of the `web-push` package Parley uses (it ships no types). */
declare module 'web-push' {
  interface RequestDetails {
    method: string;
    headers: Record<string, string | number>;
    body: Buffer | null;
    endpoint: string;
  }
  interface Subscription {
    endpoint: string;
    keys: { p256dh: string; auth: string };
  }
  interface Options {
    vapidDetails: { subject: string; publicKey: string; privateKey: string };
    TTL?: number;
    urgency?: 'very-low' | 'low' | 'normal' | 'high';
    topic?: string;
    contentEncoding?: 'aes128gcm' | 'aesgcm';
  }
  const webpush: {
    generateVAPIDKeys(): { publicKey: string; privateKey: string };
    generateRequestDetails(subscription: Subscription, payload: string | Buffer, options: Options): RequestDetails;
  };
  export default webpush;
}
