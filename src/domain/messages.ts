import { invalid, notEmail, notEmpty, tooLong, type FieldError } from './refusals.js';

/**
 * Rules of a message template (the contract's CreateMessageTemplate: Body within the type's
 * MaxCharacters, a Sender for e-mail only). Plain functions over plain values, so tests need
 * neither HTTP nor a store.
 */

/** docs/decisions.md, "Reference values": SendMethodId 1 Email, 2 SMS (any other method is refused a Sender). */
export const SEND_METHOD_EMAIL = 1;

export interface MessageTypeRule {
  id: number;
  maxCharacters: number;
  sendMethodId: number;
}

export interface TemplateText {
  Name: string;
  Title: string;
  Body: string;
  Sender?: string;
}

/** Characters as a reader counts them (code points, as the contract's maxLength counts). */
export const characterCount = (text: string): number => [...text].length;

/** A blank Sender (empty or only spaces, e.g. an empty CSV cell) means "no sender". */
export const normalizeSender = (sender: string | undefined): string | undefined =>
  sender === undefined || sender.trim() === '' ? undefined : sender.trim();

/**
 * The same loose check FluentValidation's EmailAddress validator makes (one `@` with text
 * on both sides, no spaces): strict address grammar refuses too many real addresses.
 */
export const isEmailAddress = (value: string): boolean => /^[^@\s]+@[^@\s]+$/.test(value);

/** Name, Title and Body: the schema checks presence; whitespace alone is empty too. */
export function checkRequiredText(input: TemplateText): FieldError[] {
  return (['Name', 'Title', 'Body'] as const)
    .filter((field) => input[field].trim() === '')
    .map((field) => notEmpty(field));
}

/** Body may be at most the message type's MaxCharacters long (exactly the limit is fine). */
export function checkBodyLength(body: string, type: MessageTypeRule): FieldError[] {
  const length = characterCount(body);
  if (length <= type.maxCharacters) return [];
  return [tooLong('Body', type.maxCharacters, length)];
}

/** Sender: an e-mail address for e-mail types; cannot be set for SMS types. */
export function checkSender(sender: string | undefined, type: MessageTypeRule): FieldError[] {
  if (sender === undefined) return [];
  if (type.sendMethodId !== SEND_METHOD_EMAIL) {
    return [invalid('Empty', 'Sender', (name) => `${name} cannot be set for SMS message types.`)];
  }
  if (!isEmailAddress(sender)) return [notEmail('Sender')];
  return [];
}

/**
 * The services a template is connected to: duplicates collapse (first occurrence keeps its
 * place); each id the company does not own is an error naming its index in the request.
 * Null or empty means "all services" and is answered as an empty list.
 */
export function checkServices(
  requested: readonly number[] | null | undefined,
  companyServiceIds: ReadonlySet<number>,
): { serviceIds: number[]; errors: FieldError[] } {
  const serviceIds: number[] = [];
  const errors: FieldError[] = [];
  (requested ?? []).forEach((id, index) => {
    if (!companyServiceIds.has(id)) {
      errors.push(invalid('NotFound', `Services[${index}]`, `Service ${id} does not exist in the company.`));
    } else if (!serviceIds.includes(id)) {
      serviceIds.push(id);
    }
  });
  return { serviceIds, errors };
}

/** Every rule of a new template; `type` is undefined when TypeId names no message type. */
export function checkTemplate(
  input: TemplateText & { TypeId: number; Services?: readonly number[] | null },
  type: MessageTypeRule | undefined,
  companyServiceIds: ReadonlySet<number>,
): { serviceIds: number[]; sender: string | undefined; errors: FieldError[] } {
  const sender = normalizeSender(input.Sender);
  const services = checkServices(input.Services, companyServiceIds);
  const errors = [
    ...(type ? [] : [invalid('NotFound', 'TypeId', (name) => `${name} ${input.TypeId} is not a known message type.`)]),
    ...checkRequiredText(input),
    ...(type ? checkBodyLength(input.Body, type) : []),
    ...(type ? checkSender(sender, type) : []),
    ...services.errors,
  ];
  return { serviceIds: services.serviceIds, sender, errors };
}
