import { resourceTypeMemberErrors } from '../domain/resources.js';
import { badRequest, validationFailed } from '../http/errors.js';
import { resourceTypesRepository, type FullResourceType, type MemberRow } from '../store/repositories/resource-types.js';
import { bool, compact } from '../store/rows.js';
import { requireCompany } from './company.js';
import type { HandlersOf, Schemas } from './types.js';

// Row → API mapping of resource types. `compact` drops SQL nulls (the API omits them).

const toMember = (r: MemberRow): Schemas['ResourceTypeResource'] =>
  compact({
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
  }) as Schemas['ResourceTypeResource'];

export const toResourceType = ({ type, resources }: FullResourceType): Schemas['ResourceTypeQueryResponse'] =>
  compact({
    Id: type.id,
    Name: type.name,
    Description: type.description,
    // Callers of the operations that answer this are administrators: every member is listed.
    Resources: resources.map(toMember),
    Active: bool(type.active),
    Created: type.created,
    Updated: type.updated,
  }) as Schemas['ResourceTypeQueryResponse'];

export const resourceTypeHandlers: HandlersOf<'CreateResourceType'> = {
  /**
   * Adds the type to the company the call acts on. Every check runs before the first
   * write, inside the same transaction, so a refused request writes nothing.
   */
  async CreateResourceType({ body, companyId: company, store }) {
    if (body.Name.trim() === '') throw badRequest('NotEmpty', "'Name' must not be empty.", 'Name');
    const requested = body.Resources ?? [];
    const created = await resourceTypesRepository(store).transaction(async (repo) => {
      await requireCompany(repo.companies, company);
      const known = await repo.companyResourceIds(company, requested.map((r) => r.Id));
      const errors = resourceTypeMemberErrors(requested, known);
      if (errors.length > 0) throw validationFailed(errors);
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
