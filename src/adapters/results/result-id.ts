/**
 * Result ids reach the stores from URLs: only ids that can never name another path are valid
 * (letters, digits, '-' and '_', as UUIDs and base64url ids are), so no store ever sees "..", "/"
 * or a NUL.
 */
const SAFE_RESULT_ID = /^[A-Za-z0-9_-]{8,128}$/;

export const isSafeResultId = (resultId: string): boolean => SAFE_RESULT_ID.test(resultId);
