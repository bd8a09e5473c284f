/**
 * Nextcloud's reaction rule (docs/reference/chat.md#reactions, server Comments\Manager::isValidEmoji):
 * a reaction is exactly one emoji. Multi-code-point emoji (ZWJ sequences, flags, skin tones,
 * keycaps) count as one: one grapheme cluster made only of emoji code points and joiners.
 */
const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const EMOJI_PART = /^(?:\p{Emoji}|\p{Emoji_Component}|\u200d|\ufe0f|\u20e3|[\u{e0020}-\u{e007f}])+$/u;
/** Plain digits, '#' and '*' are \p{Emoji} too; an emoji needs a pictograph, a flag, VS16 or a keycap. */
const EMOJI_MARK = /\p{Extended_Pictographic}|\p{Emoji_Presentation}|\p{Regional_Indicator}|\ufe0f|\u20e3/u;

export function isSingleEmoji(value: string): boolean {
  if (value === '' || value.length > 64) return false;
  const graphemes = [...segmenter.segment(value)];
  return graphemes.length === 1 && EMOJI_PART.test(value) && EMOJI_MARK.test(value);
}

/**
 * The emoji a conversation name starts with, when its first character is one (Talk's
 * AvatarService: such a conversation without a picture shows that emoji;
 * docs/reference/conversations.md#avatars): the whole first emoji, ZWJ sequences included.
 */
export function leadingEmoji(name: string): string | undefined {
  const first = segmenter.segment(name)[Symbol.iterator]().next();
  if (first.done) return undefined;
  const grapheme = first.value.segment;
  const codePoint = String.fromCodePoint(grapheme.codePointAt(0)!);
  return isSingleEmoji(grapheme) && EMOJI_MARK.test(codePoint) ? grapheme : undefined;
}
