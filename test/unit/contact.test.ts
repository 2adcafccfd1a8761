import { describe, expect, it } from 'vitest';
import { resolveContact, type ContactSources, type Profile } from '../../src/offerings/contact.js';
import { mergeContactChannels } from '../../src/offerings/profileChannels.js';

const provider = { name: 'Acme Estates', email: 'info@acme.example', phone: '+49301', mobile: '+49170001' };
const user = {
  firstName: 'Anna',
  lastName: 'Agent',
  email: 'anna@user.example',
  phone: '+49302',
  mobile: '+49170002',
  language: 'en',
  generalProfile: null,
};
const general: Profile = {
  name: 'Anna (general)',
  channels: [
    { type: 'email', value: 'anna@general.example' },
    { type: 'mobile', value: '+49170003' },
    { type: 'phone', value: '+49303' },
  ],
};
const specific: Profile = {
  name: 'Anna for Acme',
  channels: [
    { type: 'email', label: 'Acme', value: 'anna@acme.example' },
    { type: 'video', value: 'https://meet.example/anna' },
  ],
};

const sources = (over: Partial<ContactSources>): ContactSources => ({
  profile: null,
  contactUser: null,
  provider,
  ...over,
});

describe('resolveContact', () => {
  it('uses the provider data when the resource has no contact user', () => {
    expect(resolveContact(sources({}))).toEqual({
      source: 'provider',
      name: 'Acme Estates',
      email: 'info@acme.example',
      mobile: '+49170001',
      phone: '+49301',
      channels: [],
      language: null,
    });
  });

  it('ignores a profile without a contact user (a profile needs its user)', () => {
    expect(resolveContact(sources({ profile: specific })).source).toBe('provider');
  });

  it('prefers the resource contact profile over the general profile', () => {
    const resolved = resolveContact(sources({ profile: specific, contactUser: { ...user, generalProfile: general } }));
    expect(resolved.source).toBe('profile');
    expect(resolved.name).toBe('Anna for Acme');
    expect(resolved.email).toBe('anna@acme.example');
    expect(resolved.channels).toBe(specific.channels);
  });

  it('fills fields the profile lacks from the contact user, not from the general profile', () => {
    const resolved = resolveContact(sources({ profile: specific, contactUser: { ...user, generalProfile: general } }));
    expect(resolved.mobile).toBe('+49170002');
    expect(resolved.phone).toBe('+49302');
  });

  it('falls back to the general profile of the contact user when the resource has no profile', () => {
    expect(resolveContact(sources({ contactUser: { ...user, generalProfile: general } }))).toEqual({
      source: 'generalProfile',
      name: 'Anna (general)',
      email: 'anna@general.example',
      mobile: '+49170003',
      phone: '+49303',
      channels: general.channels,
      language: 'en',
    });
  });

  it('falls back to the contact user itself when there is no profile at all', () => {
    expect(resolveContact(sources({ contactUser: user }))).toEqual({
      source: 'user',
      name: 'Anna Agent',
      email: 'anna@user.example',
      mobile: '+49170002',
      phone: '+49302',
      channels: [],
      language: 'en',
    });
  });

  it('uses the last name alone, and the provider name when the user has no names', () => {
    expect(resolveContact(sources({ contactUser: { ...user, firstName: null } })).name).toBe('Agent');
    expect(resolveContact(sources({ contactUser: { ...user, firstName: null, lastName: null } })).name).toBe(
      'Acme Estates',
    );
  });

  it('falls back to the provider email when neither profile nor user has one, so provider mail has a recipient', () => {
    const noEmail = { name: 'P', channels: [{ type: 'phone' as const, value: '1' }] };
    expect(resolveContact(sources({ profile: noEmail, contactUser: { ...user, email: null } })).email).toBe(
      'info@acme.example',
    );
  });

  it('leaves mobile and phone empty rather than showing the provider numbers for a contact user without them', () => {
    const resolved = resolveContact(sources({ contactUser: { ...user, mobile: null, phone: null } }));
    expect(resolved.mobile).toBeNull();
    expect(resolved.phone).toBeNull();
  });
});

describe('contact channel merge rule (B8)', () => {
  const current = [
    { type: 'email' as const, label: 'Office', value: 'old@example.com' },
    { type: 'phone' as const, label: null, value: '+4930' },
  ];

  it('creates a type that does not exist yet', () => {
    expect(
      mergeContactChannels(current, [
        { type: 'email', value: 'old@example.com' },
        { type: 'link', label: 'Web', value: 'https://x' },
        { type: 'phone', value: '+4930' },
      ]),
    ).toContainEqual({ type: 'link', label: 'Web', value: 'https://x' });
  });

  it('updates an existing type and keeps its label when the request leaves the label out', () => {
    expect(mergeContactChannels(current, [{ type: 'email', value: 'new@example.com' }])).toEqual([
      { type: 'email', label: 'Office', value: 'new@example.com' },
    ]);
    expect(mergeContactChannels(current, [{ type: 'email', label: 'Home', value: 'new@example.com' }])[0].label).toBe(
      'Home',
    );
    expect(
      mergeContactChannels(current, [{ type: 'email', label: null, value: 'new@example.com' }])[0].label,
    ).toBeNull();
  });

  it('removes a type missing from the request', () => {
    expect(mergeContactChannels(current, [{ type: 'phone', value: '+4931' }])).toEqual([
      { type: 'phone', label: null, value: '+4931' },
    ]);
    expect(mergeContactChannels(current, [])).toEqual([]);
  });
});
