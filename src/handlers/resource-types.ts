import { resourceTypeMemberErrors } from '../domain/resources.js';
import { notEmpty, refuseAny, refused } from '../domain/refusals.js';
import { resourceTypesRepository, type FullResourceType, type MemberRow } from '../store/repositories/resource-types.js';
import { bool, opt, type Answer } from '../store/prepared.js';
import { unknownCompany } from './company.js';
import type { HandlersOf, Schemas } from './types.js';

// Row → API mapping of resource types. `opt` makes SQL nulls absent (the API omits them).

const toMember = (r: MemberRow) =>
  ({
    Id: r.id,
    Name: r.name,
    Active: bool(r.active),
    Description: opt(r.description),
    Email: opt(r.email),
    Phone: opt(r.mobile_phone),
    Color: opt(r.color),
    ImageUrl: opt(r.image_url),
    Priority: opt(r.priority),
    EmailNotification: bool(r.email_notification),
    SMSNotification: bool(r.sms_notification),
    // The reminders are nullable on the resource; "not set" reads as "no reminder" here.
    EmailReminder: bool(r.send_email_reminder),
    SMSReminder: bool(r.send_sms_reminder),
  } satisfies Answer<Schemas['ResourceTypeResource']>);

export const toResourceType = ({ type, resources }: FullResourceType) =>
  ({
    Id: type.id,
    Name: type.name,
    Description: opt(type.description),
    // Callers of the operations that answer this are administrators: every member is listed.
    Resources: resources.map(toMember),
    Active: bool(type.active),
    Created: type.created,
    Updated: type.updated,
  } satisfies Answer<Schemas['ResourceTypeQueryResponse']>);

export const resourceTypeHandlers: HandlersOf<'CreateResourceType'> = {
  /**
   * Adds the type to the company the call acts on. One transaction: the type is inserted
   * for the company if it exists, then linked to those of the listed resources that are
   * the company's (locked against deletion until commit); the resources that could not be
   * linked refuse the request (400), and the refusal rolls the writes back.
   */
  async CreateResourceType({ body, companyId: company, store }) {
    if (body.Name.trim() === '') throw refused(notEmpty('Name'));
    const requested = body.Resources ?? [];
    const full = await resourceTypesRepository(store).create(
      {
        companyId: company,
        name: body.Name,
        description: body.Description,
        // Absent Active is false, as the service's non-nullable bool request field defaults.
        active: body.Active === true,
        now: new Date().toISOString(),
      },
      requested.map((r) => ({ id: r.Id, priority: r.Priority })),
    );
    if (!full) throw unknownCompany(company);
    refuseAny(resourceTypeMemberErrors(requested, new Set(full.resources.map((r) => r.id))));
    return toResourceType(full);
  },
};
