/**
 * The invitation mail sent to an e-mail guest (POST participants with source `emails`, and
 * resend-invitations): the conversation link and, when SIP dial-in applies, the PIN and the
 * dial-in information. Pure text composition.
 */
export interface InvitationInput {
  baseUrl: string;
  token: string;
  roomName: string;
  inviterName: string;
  /** Present only when SIP is configured and enabled for the conversation. */
  pin?: string;
  dialInInfo?: string;
}

export function conversationLink(baseUrl: string, token: string): string {
  return `${baseUrl}/call/${token}`;
}

export function invitationMail(i: InvitationInput): { subject: string; text: string } {
  const name = i.roomName || 'a conversation';
  const who = i.inviterName || 'Someone';
  const lines = [`${who} invited you to join "${name}".`, '', `Join the conversation: ${conversationLink(i.baseUrl, i.token)}`];
  if (i.pin) {
    lines.push('', 'You can also dial in by phone.');
    if (i.dialInInfo) lines.push(i.dialInInfo);
    lines.push(`Meeting ID: ${i.token}`, `Your PIN: ${i.pin}`);
  }
  return { subject: `${who} invited you to "${name}"`, text: lines.join('\n') + '\n' };
}
