/**
 * The text an identifier's key signs to prove control for one claim (rule of 2026-11-28). It
 * names the identifier and the claimer exactly as the record carries them, and when it was
 * signed, so that a signature the key made for anything else (a login, a post, a proof for
 * another claimer) proves nothing here, and a captured proof goes stale.
 */
export function controlProofMessage(identifier: string, claimer: string | undefined, signedAt: number): string {
  return messageText(identifier, claimer, String(signedAt));
}

/** The text with `<signed_at>` in place of the time: what a caller is told to sign. */
export function controlProofTemplate(identifier: string, claimer: string | undefined): string {
  return messageText(identifier, claimer, '<signed_at>');
}

function messageText(identifier: string, claimer: string | undefined, signedAt: string): string {
  // An empty claimer is left out of the record (its verify default), so the text leaves it out too.
  return claimer ? `Prove control of ${identifier} for claimer ${claimer} at ${signedAt}` : `Prove control of ${identifier} at ${signedAt}`;
}

/** Unix seconds as the text writes them: no sign, no leading zero, no fraction. */
const SIGNED_AT_AT_END = / at (0|[1-9][0-9]{0,15})$/;

export type MessageBinding = { bound: true; signedAt: number } | { bound: false; reason: string };

/**
 * Whether `message` is this claim's text, and the signing time it carries. The time is read from
 * the end, and the whole text is then compared with the one built from the claim: nothing in it
 * is read loosely. Whether the time is recent is the caller's to judge, with the clock.
 */
export function bindingOf(claim: { identifier: string; claimer?: string }, message: string): MessageBinding {
  const expected = `"${controlProofTemplate(claim.identifier, claim.claimer)}"`;
  const written = SIGNED_AT_AT_END.exec(message);
  const signedAt = written ? Number(written[1]) : undefined;
  if (signedAt === undefined || !Number.isSafeInteger(signedAt)) return { bound: false, reason: `the message does not end with " at <signed_at>" in Unix seconds; it must be ${expected}` };
  if (message !== controlProofMessage(claim.identifier, claim.claimer, signedAt)) return { bound: false, reason: `the message is not this claim's text ${expected} (it must name this identifier and claimer exactly)` };
  return { bound: true, signedAt };
}
