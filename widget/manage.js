/* The manage page's "choose another time" (docs/lifecycle.md): the booking widget's slot picker
   (BookingWidget.mount with onPick), a confirmation, then POST /rest/1/bookings/{token}/reschedule.
   The token is the page's own path; nothing is moved before the consumer confirms. */
(() => {
  'use strict';
  const section = document.getElementById('reschedule');
  const widget = /** @type {any} */ (window).BookingWidget;
  if (!section || !widget) return;
  const d = section.dataset;
  const lang = d.lang === 'en' ? 'en' : 'de';
  const T = {
    de: {
      confirm: 'Termin verschieben auf',
      move: 'Verschieben bestätigen',
      moving: 'Wird verschoben …',
      back: 'Andere Zeit wählen',
      taken: 'Diese Zeit ist leider nicht mehr frei. Bitte wählen Sie eine andere.',
      network: 'Keine Verbindung. Bitte versuchen Sie es noch einmal.',
      failed: 'Das Verschieben hat nicht geklappt.',
    },
    en: {
      confirm: 'Move the appointment to',
      move: 'Confirm the move',
      moving: 'Moving …',
      back: 'Choose another time',
      taken: 'Sorry, this time is no longer free. Please choose another one.',
      network: 'No connection. Please try again.',
      failed: 'The appointment could not be moved.',
    },
  }[lang];
  const token = location.pathname.split('/').pop() || '';
  const base = new URL('../', location.href);
  const openButton = /** @type {HTMLButtonElement} */ (document.getElementById('choose-time'));
  const picker = /** @type {HTMLElement} */ (document.getElementById('slot-picker'));
  const confirmBox = /** @type {HTMLElement} */ (document.getElementById('move-confirm'));
  /** @type {any} */
  let handle = null;
  /** the key of the move being confirmed; kept for a retry after a network error */
  let attempt = null;

  const newKey = () =>
    crypto.randomUUID
      ? crypto.randomUUID()
      : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');

  const when = (/** @type {any} */ slot) =>
    new Intl.DateTimeFormat(lang === 'de' ? 'de-DE' : 'en-GB', { dateStyle: 'full', timeStyle: 'short' }).format(
      new Date(slot.start),
    );

  /** @param {string} tag @param {Record<string, string>} attrs @param {string} [text] */
  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function showPicker() {
    openButton.hidden = true;
    confirmBox.replaceChildren();
    picker.hidden = false;
    if (handle) return handle.reload();
    handle = widget.mount(picker, {
      ref: d.ref,
      prdRef: d.prdRef || undefined,
      channelKey: d.channelKey || undefined,
      lang,
      headingLevel: 3,
      baseUrl: base.toString(),
      onPick: choose,
    });
  }

  /** @param {any} slot */
  function choose(slot) {
    attempt = { slot, key: newKey() };
    picker.hidden = true;
    render(null);
  }

  /** @param {string | null} error */
  function render(error) {
    const slot = attempt.slot;
    const move = el('button', { type: 'button', class: 'primary', 'data-key': 'confirm-move' }, T.move);
    const back = el('button', { type: 'button', class: 'secondary' }, T.back);
    move.addEventListener('click', submit);
    back.addEventListener('click', showPicker);
    confirmBox.replaceChildren(
      ...(error ? [el('p', { class: 'error', role: 'alert' }, error)] : []),
      el('p', {}, `${T.confirm}: ${when(slot)}`),
      move,
      document.createTextNode(' '),
      back,
    );
    move.focus();
  }

  async function submit() {
    const { slot, key } = attempt;
    const button = confirmBox.querySelector('[data-key="confirm-move"]');
    if (button) {
      button.setAttribute('disabled', '');
      button.textContent = T.moving;
    }
    const body = {
      start: slot.start,
      end: slot.end,
      // a pool's slot ("anyone"): the pool picks the member free then; else the slot of a resource or member
      ...(slot.kind === 'models.PoolBookable'
        ? { pool_uuid: slot.pool_uuid }
        : {
            timeslot_uuid:
              slot.kind === 'models.LotAppointment' && slot.appointment_uuid
                ? slot.appointment_uuid
                : slot.timeslot_uuid,
          }),
      ...(d.prdRef ? { product_uuid: d.prdRef } : slot.product_uuid ? { product_uuid: slot.product_uuid } : {}),
    };
    let res;
    try {
      res = await fetch(new URL(`rest/1/bookings/${encodeURIComponent(token)}/reschedule`, base), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify(body),
      });
    } catch {
      return render(T.network); // same key on the retry: the move happens at most once
    }
    if (res.ok) {
      const params = new URLSearchParams(location.search);
      params.set('rescheduled', '1');
      return location.replace(`${location.pathname}?${params}`);
    }
    const data = await res.json().catch(() => null);
    const first = data?.errors?.[0] ? data.errors[0] : {};
    const message = first.message || '';
    if (res.status === 412) {
      showPicker();
      confirmBox.replaceChildren(el('p', { class: 'error', role: 'alert' }, T.taken));
      return;
    }
    // the page itself says why: too late, inside the cancel notice, cancelled meanwhile, gone
    if (res.status === 404 || ['TOO_LATE', 'CANCEL_NOTICE', 'INVALID_TRANSITION'].includes(first.errorCode))
      return location.reload();
    attempt = { slot, key: newKey() };
    render(`${T.failed} ${message}`.trim());
  }

  openButton.hidden = false;
  openButton.addEventListener('click', showPicker);
})();
