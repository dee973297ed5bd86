/**
 * Who is calling, in the domain's words: the rules that depend on the caller (who sees a
 * rebate code's private parts) read this, and src/auth makes it from a verified token.
 */

/** The role that may act on any company. */
export const SUPERADMIN = 'superadmin';

/** Who is calling, as the verified token says. */
export interface Caller {
  sub?: string;
  /** the caller's company (lower-case guid), when the token names one */
  companyId?: string;
  roles: ReadonlySet<string>;
}
