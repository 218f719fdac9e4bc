const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * Form decoding turns '+' into ' ' when a client forgot to URL-encode its base64, and some
 * clients wrap lines; both are undone here before decoding (PostHog's capture does the same).
 */
export const repairBase64 = (text: string): string => text.replace(/ /g, '+').replace(/[\r\n\t]/g, '');

export const looksLikeBase64 = (text: string): boolean => {
  const repaired = repairBase64(text);
  return repaired.length % 4 !== 1 && BASE64.test(repaired);
};

/** Node's decoder silently skips invalid characters, so the shape is checked first. */
export function decodeBase64Text(text: string): string | undefined {
  if (!looksLikeBase64(text)) return undefined;
  return Buffer.from(repairBase64(text), 'base64').toString('utf8');
}
