import { resourceTypeMemberErrors } from '../domain/resources.js';
import { notEmpty, refuseAny, refused } from '../domain/refusals.js';
import { resourceTypesRepository, type FullResourceType, type MemberRow } from '../store/repositories/resource-types.js';
import { bool, compact } from '../store/rows.js';
import { requireCompany } from './company.js';
import type { HandlersOf, Schemas } from './types.js';

// Row → API mapping of resource types. `compact` drops SQL nulls (the API omits them).

const toMember = (r: MemberRow) =>
  compact<Schemas['ResourceTypeResource']>({
    Id: r.id,
    Name: r.name,
    Active: bool(r.active),
    Description: r.description,
    Email: r.email,
    Phone: r.mobile_phone,
    Color: r.color,
    ImageUrl: r.image_url,
    Priority: r.priority,
    EmailNotification: bool(r.email_notification),
    SMSNotification: bool(r.sms_notification),
    // The reminders are nullable on the resource; "not set" reads as "no reminder" here.
    EmailReminder: bool(r.send_email_reminder),
    SMSReminder: bool(r.send_sms_reminder),
  });

export const toResourceType = ({ type, resources }: FullResourceType) =>
  compact<Schemas['ResourceTypeQueryResponse']>({
    Id: type.id,
    Name: type.name,
    Description: type.description,
    // Callers of the operations that answer this are administrators: every member is listed.
    Resources: resources.map(toMember),
    Active: bool(type.active),
    Created: type.created,
    Updated: type.updated,
  });

export const resourceTypeHandlers: HandlersOf<'CreateResourceType'> = {
  /**
   * Adds the type to the company the call acts on. Every check runs before the first
   * write, inside the same transaction, so a refused request writes nothing.
   */
  async CreateResourceType({ body, companyId: company, store }) {
    if (body.Name.trim() === '') throw refused(notEmpty('Name'));
    const requested = body.Resources ?? [];
    const created = await resourceTypesRepository(store).transaction(async (repo) => {
      await requireCompany(repo.companies, company);
      const known = await repo.companyResourceIds(company, requested.map((r) => r.Id));
      refuseAny(resourceTypeMemberErrors(requested, known));
      return repo.create({
        companyId: company,
        name: body.Name,
        description: body.Description,
        // Absent Active is false, as the service's non-nullable bool request field defaults.
        active: body.Active === true,
        resources: requested.map((r) => ({ id: r.Id, priority: r.Priority })),
        now: new Date().toISOString(),
      });
    });
    return toResourceType(created);
  },
};
