/**
 * "Manage my bookings" (docs/widget.md): the consumer gives their e-mail address, the service mails
 * them a link to their bookings here (POST rest/1/my-bookings), and the widget says to check the
 * mail. The answer is the same for every address, so the widget says the same to everybody.
 */
import { h } from './dom.js';
import { fill } from './i18n.js';
import { EMAIL_SHAPE, messageOf } from './state.js';
import { button, stepHeading } from './views/parts.js';

/** @typedef {import('./mount.js').Widget} Widget */
/** @typedef {import('./api.js').ApiError} ApiError */

/** @param {Widget} w */
export function createMyBookings(w) {
  const { s, t } = w;
  /** the step to go back to */
  let back = s.step;

  function open() {
    if (s.step !== 'manage' && s.step !== 'manageSent') back = s.step;
    s.manage = { email: s.manage.email || s.form.email, error: '' };
    s.step = 'manage';
    w.render('heading');
  }

  function close() {
    s.step = back === 'loading' ? 'error' : back;
    w.render('heading');
  }

  async function send() {
    const email = s.manage.email.trim();
    s.manage.error = EMAIL_SHAPE.test(email) ? '' : email ? t.errEmail : t.errRequired;
    if (s.manage.error || s.busy) return w.render(s.manage.error ? 'field-manage-email' : undefined);
    s.busy = true;
    w.render('manage-send');
    try {
      await w.api.myBookings(email, w.lang);
      s.step = 'manageSent';
      w.render('heading');
      w.announce(fill(t.manageSent, { email }));
    } catch (e) {
      const err = /** @type {ApiError} */ (e);
      if (err.status === 400) s.manage.error = t.errEmail;
      w.render(err.status === 400 ? 'field-manage-email' : undefined);
      if (err.status !== 400) w.showAlert(messageOf(err, t), { retry: send });
    } finally {
      s.busy = false;
      if (s.step === 'manage') w.render();
    }
  }

  return { open, close, send, input: (/** @type {string} */ value) => (s.manage.email = value) };
}

/** The form: one address field and the button. @param {Widget} w */
export function viewManage(w) {
  const { s, t } = w;
  const id = `${w.id}-manage-email`;
  const err = s.manage.error;
  return h(
    'section',
    { class: 'bw-step' },
    stepHeading(w, t.manageTitle),
    h('p', { id: `${id}-hint` }, t.manageText),
    h(
      'form',
      {
        novalidate: true,
        onsubmit: (/** @type {Event} */ e) => {
          e.preventDefault();
          w.myBookings.send();
        },
      },
      h(
        'div',
        { class: 'bw-field' },
        h('label', { for: id }, t.email),
        h('input', {
          id,
          name: 'email',
          type: 'email',
          class: 'bw-input',
          'data-key': 'field-manage-email',
          autocomplete: 'email',
          required: true,
          spellcheck: 'false',
          maxlength: 254,
          value: s.manage.email,
          'aria-invalid': err ? 'true' : null,
          'aria-describedby': err ? `${id}-hint ${id}-err` : `${id}-hint`,
          oninput: (/** @type {Event} */ e) => w.myBookings.input(/** @type {HTMLInputElement} */ (e.target).value),
        }),
        h('p', { class: 'bw-field-error', id: `${id}-err`, hidden: !err }, err || ''),
      ),
      h(
        'div',
        { class: 'bw-actions' },
        h(
          'button',
          { type: 'submit', class: 'bw-btn', 'data-key': 'manage-send', 'aria-disabled': s.busy ? 'true' : 'false' },
          s.busy ? t.sending : t.manageSend,
        ),
        button('manage-back', t.manageBack, w.myBookings.close, false),
      ),
    ),
  );
}

/** "Check your mail", the same for every address. @param {Widget} w */
export function viewManageSent(w) {
  const { s, t } = w;
  return h(
    'section',
    { class: 'bw-step' },
    stepHeading(w, t.manageSentTitle),
    h('p', null, fill(t.manageSent, { email: s.manage.email.trim() })),
    h('div', { class: 'bw-actions' }, button('manage-back', t.manageBack, w.myBookings.close, false)),
  );
}

/** The way in, below every step but the manage steps themselves. @param {Widget} w */
export const manageEntry = (w) =>
  w.s.step === 'manage' || w.s.step === 'manageSent' || w.s.step === 'loading'
    ? null
    : h(
        'p',
        { class: 'bw-manage' },
        h(
          'button',
          { type: 'button', class: 'bw-link', 'data-key': 'manage-open', onclick: w.myBookings.open },
          w.t.manageOpen,
        ),
      );
