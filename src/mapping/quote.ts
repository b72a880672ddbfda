/**
 * Source strings (ids, labels, names) appear quoted in comments and messages, exactly as
 * `JSON.stringify` quotes them.
 */

/** Text that `JSON.stringify` writes unchanged between quotes: no quote, backslash, control character or surrogate. */
const PLAIN_TEXT = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/**
 * `JSON.stringify(text)`. Plain text (nearly every id) is put between quotes directly, which is a
 * few times faster than going through the JSON serializer, and the mapping quotes thousands of ids
 * per issuer; anything else goes through `JSON.stringify`. Property tests check both agree.
 */
export function quoted(text: string): string {
  return PLAIN_TEXT.test(text) ? `"${text}"` : JSON.stringify(text);
}
