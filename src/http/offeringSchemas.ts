import { Type } from '@fastify/type-provider-typebox';
import { BOOKING_PROCESSES, CHANNEL_KEYS } from '../offerings/channels.js';
import { CHANNEL_TYPES } from '../offerings/contact.js';
import { Nullable } from './reply.js';

const Text = (max = 255, description?: string) => Type.String({ minLength: 1, maxLength: max, description });
const OptText = (max = 255, description?: string) => Type.Optional(Nullable(Type.String({ maxLength: max, description })));
/** Minutes: whole, never negative, at most a year. */
const Minutes = (description: string) => Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 525_600, description })));

export const ProviderParams = Type.Object({ crmId: Type.String(), providerRef: Type.String({ minLength: 1 }) });
export const ProductParams = Type.Object({ crmId: Type.String(), providerRef: Type.String({ minLength: 1 }), productRef: Type.String({ minLength: 1 }) });
export const ResourceParams = Type.Object({ crmId: Type.String(), providerRef: Type.String({ minLength: 1 }), resourceRef: Type.String({ minLength: 1 }) });
export const UserParams = Type.Object({ crmId: Type.String(), userRef: Type.String({ minLength: 1 }) });
export const ProfileParams = Type.Object({ crmId: Type.String(), providerRef: Type.String({ minLength: 1 }), profileRef: Type.String({ minLength: 1 }) });

// ---- products ----

const productFields = {
  name: Text(),
  description: OptText(4000),
  minDuration: Minutes('minutes'),
  maxDuration: Minutes('minutes'),
  leadTimeMinutes: Minutes('travel/preparation buffer before the appointment'),
  followUpTimeMinutes: Minutes('return/wrap-up buffer after the appointment'),
  exclusive: Type.Optional(Type.Boolean({ description: 'offered only on RESOURCE_EXCLUSIVE' })),
};

export const ProductBody = Type.Object({ reference: Text(255, 'unique per provider'), ...productFields });
export const ProductUpdateBody = Type.Object({ ...productFields, name: Type.Optional(Text()) });

export const Product = Type.Object({
  uuid: Type.String(),
  reference: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  minDuration: Nullable(Type.Integer()),
  maxDuration: Nullable(Type.Integer()),
  leadTimeMinutes: Nullable(Type.Integer()),
  followUpTimeMinutes: Nullable(Type.Integer()),
  exclusive: Type.Boolean(),
});

// ---- resources ----

/** A plain string enum: its 400 lists the allowed values ("must be one of ..."). */
const StringEnum = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

export const ChannelTypeSchema = StringEnum(CHANNEL_TYPES, CHANNEL_TYPES.join(', '));
const BookingProcess = StringEnum(BOOKING_PROCESSES);
const ChannelSetting = Type.Object({ bookingProcess: BookingProcess }, { additionalProperties: false });

export const ChannelsBody = Type.Partial(
  Type.Object(Object.fromEntries(CHANNEL_KEYS.map((k) => [k, ChannelSetting])) as Record<(typeof CHANNEL_KEYS)[number], typeof ChannelSetting>),
  { additionalProperties: false, description: `bookingProcess per channelKey (${CHANNEL_KEYS.join(', ')}); default IMMEDIATE` },
);

export const AddressBody = Type.Object({
  city: Text(),
  street: Text(),
  number: Text(32),
  zip: Text(32),
  countryCode: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2; default DE' })),
});

const BookingWindowBody = Type.Object(
  {
    minNoticeMinutes: Minutes('bookable until this many minutes before the start; null: until it starts'),
    maxAdvanceDays: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 3650, description: 'bookable until the end of the day this many days from today (provider zone); null: no limit' }))),
    cancelNoticeMinutes: Minutes('the consumer may cancel or move by link until this many minutes before the start; null: until it starts'),
  },
  { additionalProperties: false, description: 'given members replace the stored ones (null clears one); null clears every limit' },
);

const resourceFields = {
  publicName: Text(255, 'shown to customers'),
  internalName: Text(255, 'for the provider'),
  description: OptText(4000),
  products: Type.Optional(Type.Array(Text(), { maxItems: 500, description: 'product references; the products must exist' })),
  contact: Type.Optional(Nullable(Text(255, 'user reference of the contact person'))),
  contactProfileReference: Type.Optional(Nullable(Text(255, 'profile of the contact user; needs contact'))),
  website: OptText(2048),
  address: Type.Optional(Nullable(AddressBody)),
  channels: Type.Optional(ChannelsBody),
  imgUrl: OptText(2048),
  msgHelpText: OptText(4000),
  contactChannelType: Type.Optional(Nullable(ChannelTypeSchema)),
  bookingWindow: Type.Optional(Nullable(BookingWindowBody)),
};

export const ResourceBody = Type.Object({ reference: Text(255, 'unique per provider'), ...resourceFields });
export const ResourceUpdateBody = Type.Object({
  ...resourceFields,
  publicName: Type.Optional(resourceFields.publicName),
  internalName: Type.Optional(resourceFields.internalName),
  archived: Type.Optional(Type.Boolean({ description: 'archived resources cannot be booked' })),
});

export const ResourceCreateQuery = Type.Object({
  onDuplicateRaise: Type.Optional(Type.Boolean({ default: false, description: 'true: an existing reference is 400; false: it is updated' })),
});
export const ResourceDeleteQuery = Type.Object({
  ignoreFutureAppointments: Type.Optional(Type.Boolean({ default: false, description: 'archive future appointments and inform their participants' })),
});

const AddressOut = Type.Object({ city: Type.String(), street: Type.String(), number: Type.String(), zip: Type.String(), countryCode: Type.String() });
const ChannelsOut = Type.Object(
  Object.fromEntries(CHANNEL_KEYS.map((k) => [k, Type.Object({ bookingProcess: Type.String() })])) as Record<
    (typeof CHANNEL_KEYS)[number],
    ReturnType<typeof Type.Object<{ bookingProcess: ReturnType<typeof Type.String> }>>
  >,
);

export const Resource = Type.Object({
  reference: Type.String(),
  uuid: Type.String(),
  provider: Type.String(),
  publicName: Type.String(),
  internalName: Type.String(),
  description: Nullable(Type.String()),
  contact: Nullable(Type.String()),
  contactProfileReference: Nullable(Type.String()),
  website: Nullable(Type.String()),
  archived: Type.Boolean(),
  products: Type.Array(Type.String()),
  address: Nullable(AddressOut),
  channels: ChannelsOut,
  imgUrl: Nullable(Type.String()),
  msgHelpText: Nullable(Type.String()),
  contactChannelType: Nullable(Type.String()),
  bookingWindow: Type.Object({ minNoticeMinutes: Nullable(Type.Integer()), maxAdvanceDays: Nullable(Type.Integer()), cancelNoticeMinutes: Nullable(Type.Integer()) }),
});

// ---- contact profiles ----

export const ContactChannelBody = Type.Object({
  type: ChannelTypeSchema,
  label: OptText(255, 'display label'),
  value: Text(2048, 'number, email, URL or address'),
});

const ContactChannels = Type.Array(ContactChannelBody, { maxItems: CHANNEL_TYPES.length * 2, description: 'one channel per type' });

export const GeneralProfileBody = Type.Object({ name: Text(255, 'public name'), contactChannels: ContactChannels });

export const ProfileBody = Type.Object({
  reference: Text(),
  userReference: Text(),
  providerReference: Text(),
  name: Text(255, 'public name'),
  contactChannels: ContactChannels,
});

export const Profile = Type.Object({
  reference: Type.Optional(Type.String()),
  userReference: Type.String(),
  providerReference: Type.Optional(Type.String()),
  name: Type.String(),
  contactChannels: Type.Array(Type.Object({ type: Type.String(), label: Nullable(Type.String()), value: Type.String() })),
});
