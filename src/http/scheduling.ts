import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../context.js';
import { cancelAppointments, deleteAppointments } from '../scheduling/appointmentRemoval.js';
import { createAppointments, listAppointments } from '../scheduling/appointments.js';
import * as customers from '../scheduling/customers.js';
import { addParticipation, updateParticipation } from '../scheduling/participationOps.js';
import * as timeslots from '../scheduling/timeslots.js';
import { busyOverlapsOf } from '../calendars/busyTimes.js';
import { BusyOverlaps } from './calendarSchemas.js';
import { ProviderParams } from './partnerSchemas.js';
import { BODY_ERRORS, Enveloped, envelope, partnerErrors } from './reply.js';
import * as S from './schedulingSchemas.js';
import { beyondSchema } from './requestSchema.js';
import { MAX_SERIES_APPOINTMENTS, MAX_SERIES_DAYS } from '../scheduling/series.js';

const tags = ['D. Scheduling'];
const security = [{ apiKey: [] }];
// the rules of D1-D14 the schemas cannot state
const DESCRIPTIONS = {
  createTimeslots: beyondSchema(
    '',
    'each end after its start (start default: now)',
    'each given reference once in the request',
  ),
  listTimeslots: beyondSchema('', 'to after from'),
  updateTimeslot: beyondSchema('', 'end after start (a member not given: the stored value)'),
  createAppointments: beyondSchema(
    'Without series_data a single appointment; with it a series of raster-long appointments ' +
      'in the daily window from..to on the listed weekdays.',
    'a single appointment: end after start, each inline participation reference once',
    `a series: series_data.to not before series_data.from, at most ${MAX_SERIES_DAYS} days, ` +
      'weekdays required when it spans more than one day, ' +
      `to's time of day later than from's, 1 to ${MAX_SERIES_APPOINTMENTS} appointments`,
  ),
  addParticipation: beyondSchema('', 'with onDuplicateRaise=true, reference not yet taken'),
  createCustomer: beyondSchema('', "providerReference equal to the path's providerRef"),
};
const countReply = {
  200: Enveloped({ count: Type.Integer({ description: 'appointments affected' }) }),
  ...partnerErrors(...BODY_ERRORS),
};

export const schedulingRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const p = '/provider/:providerRef';

  // ---- timeslots ----
  app.post(
    `${p}/timeslots`,
    {
      schema: {
        tags,
        security,
        operationId: 'createTimeslots',
        summary: 'D1 create timeslots (all or nothing)',
        params: ProviderParams,
        body: S.TimeslotsBody,
        description: DESCRIPTIONS.createTimeslots,
        response: { 201: Enveloped({ timeslots: Type.Array(S.Timeslot) }), ...partnerErrors(409, ...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      const created = await timeslots.createTimeslots(
        deps,
        request.crmId,
        request.params.providerRef,
        request.body.timeslots,
      );
      return reply.status(201).send(envelope({ timeslots: created }));
    },
  );

  app.get(
    `${p}/resource/:resourceRef/timeslots`,
    {
      schema: {
        tags,
        security,
        operationId: 'listTimeslots',
        summary: 'D2 timeslots and appointments of a resource in [from, to)',
        params: S.ResourceParams,
        querystring: S.PeriodQuery,
        description: DESCRIPTIONS.listTimeslots,
        response: {
          200: Enveloped({ timeslots: Type.Array(S.Timeslot), appointments: Type.Array(S.Appointment) }),
          ...partnerErrors(),
        },
      },
    },
    async (request) =>
      envelope(
        await timeslots.listTimeslots(
          deps,
          request.crmId,
          request.params.providerRef,
          request.params.resourceRef,
          request.query,
        ),
      ),
  );

  app.put(
    `${p}/timeslots/:timeslotRef`,
    {
      schema: {
        tags,
        security,
        operationId: 'updateTimeslot',
        summary: 'D3 update a timeslot (given fields only)',
        params: S.TimeslotParams,
        body: S.TimeslotUpdateBody,
        description: DESCRIPTIONS.updateTimeslot,
        response: { 200: Enveloped({ timeslot: S.Timeslot }), ...partnerErrors(409, ...BODY_ERRORS) },
      },
    },
    async (request) =>
      envelope({
        timeslot: await timeslots.updateTimeslot(
          deps,
          request.crmId,
          request.params.providerRef,
          request.params.timeslotRef,
          request.body,
        ),
      }),
  );

  app.delete(
    `${p}/timeslots/:timeslotRef`,
    {
      schema: {
        tags,
        security,
        operationId: 'deleteTimeslot',
        summary: 'D4 delete a timeslot',
        params: S.TimeslotParams,
        response: { 204: Type.Null({ description: 'deleted' }), ...partnerErrors(...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      await timeslots.deleteTimeslot(deps, request.crmId, request.params.providerRef, request.params.timeslotRef);
      return reply.status(204).send(null);
    },
  );

  // ---- appointments ----
  app.get(
    `${p}/appointments`,
    {
      schema: {
        tags,
        security,
        operationId: 'listAppointments',
        summary: 'D5 list appointments (bare array)',
        params: ProviderParams,
        querystring: S.AppointmentListQuery,
        response: { 200: Type.Array(S.Appointment), ...partnerErrors() },
      },
    },
    async (request) => listAppointments(deps, request.crmId, request.params.providerRef, request.query),
  );

  app.post(
    `${p}/appointments`,
    {
      schema: {
        tags,
        security,
        operationId: 'createAppointments',
        summary: 'D6 create a single appointment or a series',
        params: ProviderParams,
        querystring: S.CreateAppointmentQuery,
        description: DESCRIPTIONS.createAppointments,
        body: S.AppointmentBody,
        response: {
          201: Enveloped({ appointments: Type.Array(S.Appointment), busyOverlaps: BusyOverlaps }),
          ...partnerErrors(409, ...BODY_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const {
        crmId,
        params: { providerRef },
      } = request;
      const created = await createAppointments(deps, crmId, providerRef, request.body, request.query);
      const busyOverlaps = await busyOverlapsOf(
        deps.db,
        crmId,
        providerRef,
        created.map((a) => a.reference),
      );
      return reply.status(201).send(envelope({ appointments: created, busyOverlaps }));
    },
  );

  app.delete(
    `${p}/appointments/withoutNotification`,
    {
      schema: {
        tags,
        security,
        operationId: 'deleteAppointmentsWithoutNotification',
        summary: 'D7 delete appointments without notification',
        params: ProviderParams,
        body: S.AppointmentSelectorBody,
        response: countReply,
      },
    },
    async (request) =>
      envelope({ count: await deleteAppointments(deps, request.crmId, request.params.providerRef, request.body) }),
  );

  app.delete(
    `${p}/appointments`,
    {
      schema: {
        tags,
        security,
        operationId: 'cancelAppointments',
        summary: 'D8 cancel appointments and mail the participants',
        params: ProviderParams,
        querystring: S.CancelQuery,
        body: S.AppointmentSelectorBody,
        response: countReply,
      },
    },
    async (request) =>
      envelope({
        count: await cancelAppointments(
          deps,
          request.crmId,
          request.params.providerRef,
          request.body,
          request.query.message,
        ),
      }),
  );

  // ---- participations ----
  const participation = Enveloped({ participation: S.Participation });
  const participationRead = { 200: participation, ...partnerErrors(409, ...BODY_ERRORS) };
  const participationAdded = Enveloped({ participation: S.Participation, busyOverlaps: BusyOverlaps });
  const participationReply = { ...participationRead, 200: participationAdded, 201: participationAdded };

  app.post(
    `${p}/participations`,
    {
      schema: {
        tags,
        security,
        operationId: 'addParticipation',
        summary: 'D9 add a participation (or update an existing reference)',
        params: ProviderParams,
        querystring: S.AddParticipationQuery,
        description: DESCRIPTIONS.addParticipation,
        body: S.ParticipationBody,
        response: participationReply,
      },
    },
    async (request, reply) => {
      const {
        crmId,
        params: { providerRef },
      } = request;
      const result = await addParticipation(deps, crmId, providerRef, request.body, request.query);
      const busyOverlaps = await busyOverlapsOf(deps.db, crmId, providerRef, [request.body.appointmentReference]);
      return reply
        .status(result.created ? 201 : 200)
        .send(envelope({ participation: result.participation, busyOverlaps }));
    },
  );

  app.post(
    `${p}/participations/:participationRef`,
    {
      schema: {
        tags,
        security,
        operationId: 'updateParticipationState',
        summary: 'D10 change the state of a participation',
        params: S.ParticipationParams,
        querystring: S.SendMailsQuery,
        body: S.ParticipationStateBody,
        response: participationRead,
      },
    },
    async (request) =>
      envelope({
        participation: await updateParticipation(
          deps,
          request.crmId,
          request.params.providerRef,
          request.params.participationRef,
          request.body,
          request.query,
        ),
      }),
  );

  // ---- customers ----
  const customer = Enveloped({ customer: S.Customer });

  app.get(
    `${p}/customers/:customerRef`,
    {
      schema: {
        tags,
        security,
        operationId: 'getCustomer',
        summary: 'D11 read a customer (204 when unknown)',
        params: S.CustomerParams,
        response: {
          200: customer,
          204: Type.Null({ description: 'no customer with this reference' }),
          ...partnerErrors(),
        },
      },
    },
    async (request, reply) => {
      const customer = await customers.getCustomer(
        deps,
        request.crmId,
        request.params.providerRef,
        request.params.customerRef,
      );
      return customer ? envelope({ customer }) : reply.status(204).send(null);
    },
  );

  app.post(
    `${p}/customers`,
    {
      schema: {
        tags,
        security,
        operationId: 'createCustomer',
        summary: 'D12 create a customer (200 when it exists)',
        description: DESCRIPTIONS.createCustomer,
        params: ProviderParams,
        body: S.CustomerBody,
        response: { 200: customer, 201: customer, ...partnerErrors(...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      const result = await customers.createCustomer(deps, request.crmId, request.params.providerRef, request.body);
      return reply.status(result.created ? 201 : 200).send(envelope({ customer: result.customer }));
    },
  );

  app.put(
    `${p}/customers/:customerRef`,
    {
      schema: {
        tags,
        security,
        operationId: 'updateCustomer',
        summary: 'D13 update a customer (given fields only)',
        params: S.CustomerParams,
        body: S.CustomerUpdateBody,
        response: { 200: customer, ...partnerErrors(409, ...BODY_ERRORS) },
      },
    },
    async (request) =>
      envelope({
        customer: await customers.updateCustomer(
          deps,
          request.crmId,
          request.params.providerRef,
          request.params.customerRef,
          request.body,
        ),
      }),
  );

  app.delete(
    `${p}/customers/:customerRef`,
    {
      schema: {
        tags,
        security,
        operationId: 'deleteCustomer',
        summary: 'D14 delete a customer',
        params: S.CustomerParams,
        querystring: S.DeleteCustomerQuery,
        response: { 204: Type.Null({ description: 'deleted' }), ...partnerErrors(409, ...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      await customers.deleteCustomer(
        deps,
        request.crmId,
        request.params.providerRef,
        request.params.customerRef,
        request.query,
      );
      return reply.status(204).send(null);
    },
  );
};
