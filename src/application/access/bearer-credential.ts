/**
 * The credential an `Authorization: Bearer <credential>` header presents. The scheme's name is
 * matched without regard to case, and may be followed by more than one space (RFC 9110 §11.1 and
 * §11.4): clients generated from an OpenAPI document write the scheme as the document names it,
 * `bearer`. Linear in the header's length: the spaces and the credential cannot overlap.
 */
export const bearerCredential = (authorization: string | undefined): string | undefined => /^bearer +(\S+)$/i.exec(authorization ?? "")?.[1];
