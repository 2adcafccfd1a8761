import { Type } from '@fastify/type-provider-typebox';
import { BRANCHES, USERNAME_PATTERN, USERNAME_RULE } from '../partners/rules.js';
import { Nullable } from './reply.js';
import { CrmPath, PathSegment, ProviderPath, RULE } from './requestSchema.js';

const Required = (description?: string) => Type.String({ minLength: 1, maxLength: 255, description });
const Opt = (max = 255, description?: string) => Type.Optional(Type.String({ maxLength: max, description }));
/** An optional text a client may also send as null (same as leaving it out on create; clears it on update). */
const OptNull = (max = 255, description?: string) =>
  Type.Optional(Nullable(Type.String({ maxLength: max, description })));
const Email = Type.String({ format: 'email', maxLength: 254 });
const Username = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: 255,
    pattern: USERNAME_PATTERN,
    description,
    [RULE]: USERNAME_RULE,
  } as { description: string });
/**
 * The form of an IANA zone name (Area/Location, UTC, Etc/GMT+1). That the zone exists is checked in
 * words (partners/providers.ts): the zones are the tz database's of the running server, which grows
 * and renames with its releases and takes aliases in any case, so no fixed enum could match it.
 */
export const TIME_ZONE_PATTERN = '^[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+)*$';

export const UserBody = Type.Object({
  reference: Required('uniqueId@platformName'),
  email: Email,
  username: Username('unique; must not contain / ? : & # \\'),
  lastName: Required(),
  firstName: OptNull(),
  phone: OptNull(64, 'landline'),
  mobile: OptNull(64),
});

export const UserUpdateBody = Type.Object({
  email: Type.Optional(Email),
  username: Type.Optional(Username('unique; must not contain / ? : & # \\')),
  lastName: Type.Optional(Required()),
  firstName: OptNull(),
  phone: OptNull(64),
  mobile: OptNull(64),
  language: Type.Optional(
    Type.String({ pattern: '^[a-z]{2}$', description: 'two-letter language code in lower case, such as de or en' }),
  ),
});

export const User = Type.Object({
  reference: Nullable(Type.String()),
  email: Type.String(),
  username: Type.String(),
  firstName: Nullable(Type.String()),
  lastName: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  mobile: Nullable(Type.String()),
  language: Nullable(Type.String()),
});

export const Staff = Type.Object({
  reference: Nullable(Type.String()),
  email: Type.String(),
  username: Type.String(),
  firstName: Nullable(Type.String()),
  lastName: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  mobile: Nullable(Type.String()),
});

export const InvoiceAddress = Type.Object({
  city: Required(),
  countryCode: Type.String({ minLength: 2, maxLength: 3 }),
  street: Required(),
  number: Required(),
  zip: Required(),
});

// branch is a plain string here: an unknown branch is a 404, not a schema 400.
export const AccountBody = Type.Object({
  accountReference: Required('uniqueId@platformName'),
  ownerReference: Required('reference of an existing user'),
  branch: Required(BRANCHES.join(', ')),
  invoiceAddress: Type.Optional(InvoiceAddress),
  invoiceContactName: OptNull(),
  invoiceCompanyName: OptNull(),
  invoiceTaxId: OptNull(64),
  email: Type.Optional(Nullable(Email)),
});

export const AccountUpdateBody = Type.Partial(Type.Omit(AccountBody, ['accountReference']));

export const Account = Type.Object({
  uuid: Type.String(),
  accountReference: Type.String(),
  ownerReference: Nullable(Type.String()),
  branch: Type.String(),
  invoiceAddress: Nullable(
    Type.Object({
      city: Type.String(),
      countryCode: Type.String(),
      street: Type.String(),
      number: Type.String(),
      zip: Type.String(),
    }),
  ),
  invoiceContactName: Nullable(Type.String()),
  invoiceCompanyName: Nullable(Type.String()),
  invoiceTaxId: Nullable(Type.String()),
  email: Nullable(Type.String()),
});

export const ProviderBody = Type.Object({
  reference: Required(),
  ownerReference: Required(),
  accountReference: Required(),
  name: Required(),
  description: OptNull(4000),
  email: Type.Optional(Nullable(Email)),
  mobile: OptNull(64),
  phone: OptNull(64),
  impressum: OptNull(10000),
  branch: Opt(64, BRANCHES.join(', ')),
  subbranch: OptNull(64),
  timeZone: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: TIME_ZONE_PATTERN,
      description:
        'an IANA time zone of the tz database such as Europe/Berlin (an unknown one is 400); default DEFAULT_TIME_ZONE',
    }),
  ),
  reminderMinutesBefore: Type.Optional(
    Nullable(
      Type.Array(Type.Integer({ minimum: 1, maximum: 525_600 }), {
        maxItems: 10,
        description:
          'reminder mails this many minutes before each booking; ' +
          'replaces REMINDER_MINUTES_BEFORE ([] = none, null = the default)',
      }),
    ),
  ),
  maxUpcomingBookingsPerConsumer: Type.Optional(
    Nullable(
      Type.Integer({
        minimum: 1,
        maximum: 100_000,
        description:
          'a consumer (by e-mail) with this many upcoming bookings or requests here gets 409 CONSUMER_LIMIT on A3; ' +
          'null: no limit',
      }),
    ),
  ),
});

export const ProviderUpdateBody = Type.Partial(Type.Omit(ProviderBody, ['reference']));

export const Provider = Type.Object({
  uuid: Type.String(),
  reference: Type.String(),
  ownerReference: Nullable(Type.String()),
  accountReference: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  email: Nullable(Type.String()),
  mobile: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  impressum: Nullable(Type.String()),
  branch: Nullable(Type.String()),
  subbranch: Nullable(Type.String()),
  timeZone: Type.String(),
  reminderMinutesBefore: Nullable(Type.Array(Type.Integer(), { description: 'null: REMINDER_MINUTES_BEFORE applies' })),
  maxUpcomingBookingsPerConsumer: Nullable(
    Type.Integer({ description: 'upcoming bookings per consumer (by e-mail); null: no limit' }),
  ),
});

export const CrmParams = CrmPath({});
export const RefParams = CrmPath({ reference: PathSegment() });
export const ProviderParams = ProviderPath({});
