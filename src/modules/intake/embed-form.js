/* Fieldwork embeddable request form. Paste into a page:
 *   <div id="request-form"></div>
 *   <script src="https://YOUR-FIELDWORK/embed/form.js" data-api-key="wk_..." data-target="#request-form"></script>
 * Optional: data-workspace-id (legacy keys only), data-title, data-submit-label.
 * It posts JSON to <origin of this script>/api/forms/embed-request. No dependencies. */
(() => {
  var script = document.currentScript;
  if (!script) return;
  var apiKey = script.getAttribute('data-api-key') || '';
  var workspaceId = script.getAttribute('data-workspace-id');
  var endpoint = new URL('/api/forms/embed-request', script.src).href;
  var target = script.getAttribute('data-target');
  var host = target ? document.querySelector(target) : null;
  if (!host) {
    host = document.createElement('div');
    script.parentNode.insertBefore(host, script.nextSibling);
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach((k) => {
      node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach((c) => {
      node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    });
    return node;
  }
  function field(name, label, type, opts) {
    opts = opts || {};
    var attrs = { name: name, id: `fw-${name}`, 'data-field': name };
    if (opts.required) attrs.required = '';
    if (opts.maxlength) attrs.maxlength = String(opts.maxlength);
    var input = type === 'textarea' ? el('textarea', attrs) : el('input', Object.assign(attrs, { type: type }));
    return el('p', { class: 'fw-field' }, [el('label', { for: attrs.id }, [label]), ' ', input]);
  }

  var status = el('div', { class: 'fw-status', 'data-fieldwork-status': '', role: 'status', 'aria-live': 'polite' });
  // D6 honeypot: invisible to people, tempting to bots; left empty by a person.
  var trap = el('p', { 'aria-hidden': 'true', style: 'position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden' }, [
    el('label', { for: 'fw-website' }, ['Website']),
    el('input', { type: 'text', name: 'website', id: 'fw-website', tabindex: '-1', autocomplete: 'off' }),
  ]);
  var button = el('button', { type: 'submit' }, [script.getAttribute('data-submit-label') || 'Send request']);
  var form = el('form', { class: 'fw-form', novalidate: '' }, [
    el('h3', {}, [script.getAttribute('data-title') || 'Request service']),
    field('firstName', 'First name', 'text', { required: true, maxlength: 50 }),
    field('lastName', 'Last name', 'text', { required: true, maxlength: 50 }),
    field('email', 'Email', 'email', { required: true }),
    field('phone', 'Phone', 'tel', { required: true, maxlength: 20 }),
    field('company', 'Company', 'text', { maxlength: 100 }),
    field('street', 'Street', 'text'),
    field('city', 'City', 'text'),
    field('state', 'State', 'text'),
    field('postal_code', 'Postal code', 'text'),
    field('country', 'Country', 'text'),
    field('description', 'How can we help?', 'textarea', { required: true, maxlength: 1000 }),
    trap,
    button,
    status,
  ]);
  host.appendChild(form);

  // E11: one Idempotency-Key per submission. A resubmit of the same filled form (a lost
  // answer, a second click) reuses it, so the server answers it once; an edited form is
  // another submission with a new key. crypto.randomUUID needs a secure context: an
  // http:// page gets 128 random bits from getRandomValues instead.
  var submission = null; // {body, key} of the last submission not known to have succeeded
  function newKey() {
    if (window.crypto.randomUUID) return window.crypto.randomUUID();
    var bytes = window.crypto.getRandomValues(new Uint8Array(16));
    return Array.prototype.map.call(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  }

  function value(name) {
    var input = form.elements[name];
    return input ? input.value.trim() : '';
  }
  function show(kind, text, lines) {
    status.className = `fw-status fw-${kind}`;
    status.setAttribute('data-state', kind);
    status.textContent = text;
    if (lines?.length) {
      const list = el(
        'ul',
        {},
        lines.map((l) => el('li', {}, [l])),
      );
      status.appendChild(list);
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    var property = {};
    ['street', 'city', 'state', 'postal_code', 'country'].forEach((k) => {
      if (value(k)) property[k] = value(k);
    });
    var formData = {
      firstName: value('firstName'),
      lastName: value('lastName'),
      email: value('email'),
      phone: value('phone'),
      description: value('description'),
      website: form.elements.website.value,
    };
    if (value('company')) formData.company = value('company');
    if (Object.keys(property).length) formData.property = property;
    var body = { apiKey: apiKey, formData: formData };
    if (workspaceId) body.workspaceId = Number(workspaceId);
    var filled = JSON.stringify(body);
    if (!submission || submission.body !== filled) submission = { body: filled, key: newKey() };
    body.idempotency_key = submission.key;
    button.disabled = true;
    show('pending', 'Sending...');
    fetch(endpoint, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
      .then((res) =>
        res
          .json()
          .catch(() => ({}))
          .then((json) => ({ ok: res.ok, json: json })),
      )
      .then((r) => {
        if (r.ok && r.json.success) {
          submission = null; // the next one is a new submission
          form.reset();
          show('success', `Thank you! Your request number is ${r.json.data.requestNumber}.`);
        } else {
          const details = (r.json.details || []).map((d) => `${d.path.slice(1).join('.')} ${d.message}`);
          show('error', r.json.error || 'Something went wrong. Please try again.', details);
        }
      })
      .catch(() => {
        show('error', 'Could not reach the server. Please try again.');
      })
      .then(() => {
        button.disabled = false;
      });
  });
})();
