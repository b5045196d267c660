/* Fieldwork embeddable request form. Paste into a page:
 *   <div id="request-form"></div>
 *   <script src="https://YOUR-FIELDWORK/embed/form.js" data-api-key="wk_..." data-target="#request-form"></script>
 * Optional: data-workspace-id (legacy keys only), data-title, data-submit-label.
 * It reads the workspace's request custom fields from <origin of this script>/api/forms/embed-fields,
 * draws them, and posts JSON to /api/forms/embed-request. No dependencies. */
(() => {
  var script = document.currentScript;
  if (!script) return;
  var apiKey = script.getAttribute('data-api-key') || '';
  var workspaceId = script.getAttribute('data-workspace-id');
  var endpoint = new URL('/api/forms/embed-request', script.src).href;
  var fieldsEndpoint = new URL('/api/forms/embed-fields', script.src).href;
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
    var input;
    if (type === 'textarea') input = el('textarea', attrs);
    else if (type === 'select') {
      input = el('select', attrs, [el('option', { value: '' }, ['Choose...'])].concat((opts.options || []).map((o) => el('option', { value: o }, [o]))));
    } else input = el('input', Object.assign(attrs, { type: type }, type === 'number' ? { step: 'any' } : {}));
    var text = opts.required ? `${label} *` : label;
    if (type === 'checkbox') return el('p', { class: 'fw-field' }, [input, ' ', el('label', { for: attrs.id }, [text])]);
    return el('p', { class: 'fw-field' }, [el('label', { for: attrs.id }, [text]), ' ', input]);
  }

  // D23: the workspace's request custom fields, drawn after the fixed ones. The
  // definitions come from the API with the same key; until they arrive (or if they
  // cannot), the form works with its own fields.
  var INPUT_TYPES = { text: 'text', number: 'number', boolean: 'checkbox', date: 'date', select: 'select' };
  var customFields = [];
  var customHost = el('div', { class: 'fw-custom-fields' });
  function drawCustomFields(defs) {
    customFields = defs.filter((d) => INPUT_TYPES[d.type]);
    customHost.textContent = '';
    customFields.forEach((d) => {
      customHost.appendChild(field(`cf-${d.key}`, d.label, INPUT_TYPES[d.type], { required: d.required, options: d.options }));
    });
  }
  function customValues() {
    var values = {};
    customFields.forEach((d) => {
      var input = form.elements[`cf-${d.key}`];
      if (!input) return;
      if (d.type === 'boolean') values[d.key] = input.checked;
      else if (input.value.trim() !== '') values[d.key] = d.type === 'number' ? Number(input.value) : input.value.trim();
    });
    return values;
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
    customHost,
    trap,
    button,
    status,
  ]);
  host.appendChild(form);

  var fieldsBody = { apiKey: apiKey };
  if (workspaceId) fieldsBody.workspaceId = Number(workspaceId);
  fetch(fieldsEndpoint, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(fieldsBody) })
    .then((res) => res.json())
    .then((json) => {
      if (json?.success && Array.isArray(json.data.custom_fields)) drawCustomFields(json.data.custom_fields);
    })
    .catch(() => {});

  // What a homeowner reads when the server refuses a submission: one sentence per
  // field, never a field path or a pattern.
  var LABELS = { firstName: 'first name', lastName: 'last name', company: 'company name' };
  function sentence(detail) {
    var path = (detail.path || []).slice(detail.path && detail.path[0] === 'formData' ? 1 : 0);
    var name = path[0];
    var message = String(detail.message || '');
    var empty = name && typeof name === 'string' && form.elements[name] ? value(name) === '' : false;
    if (name === 'firstName' || name === 'lastName') return empty ? `Please enter your ${LABELS[name]}.` : `Please shorten your ${LABELS[name]} to 50 characters or fewer.`;
    if (name === 'email') return empty ? 'Please enter your email address.' : 'Please enter a valid email address, like name@example.com.';
    if (name === 'phone') return empty ? 'Please enter your phone number.' : 'Please enter a valid phone number, like +1 555 123 4567.';
    if (name === 'description') {
      if (empty) return 'Please tell us how we can help.';
      return value('description').length < 5 ? 'Please tell us a little more about how we can help.' : 'Please shorten your message to 1,000 characters or fewer.';
    }
    if (name === 'company') return 'Please shorten the company name to 100 characters or fewer.';
    if (name === 'property') return 'Please check the address.';
    if (name === 'customFields') {
      const def = customFields.find((d) => d.key === path[1]);
      if (!def) return 'Please check the form and try again.';
      const label = `"${def.label}"`;
      if (/required/.test(message)) return def.type === 'select' ? `Please choose an option for ${label}.` : `Please fill in ${label}.`;
      if (def.type === 'select') return `Please choose one of the options for ${label}.`;
      if (def.type === 'number') return `Please enter a number for ${label}.`;
      if (def.type === 'date') return `Please enter a date for ${label}.`;
      return `Please check ${label}.`;
    }
    return 'Please check the form and try again.';
  }
  function markInvalid(details) {
    Array.prototype.forEach.call(form.querySelectorAll('[aria-invalid]'), (n) => {
      n.removeAttribute('aria-invalid');
    });
    details.forEach((d) => {
      var path = (d.path || []).slice(d.path && d.path[0] === 'formData' ? 1 : 0);
      var input = form.elements[path[0] === 'customFields' ? `cf-${path[1]}` : path[0]];
      if (input?.setAttribute) input.setAttribute('aria-invalid', 'true');
    });
  }
  function failure(status, json) {
    if (status === 429) return 'Too many requests have been sent from this form. Please try again later.';
    if (status === 401 || status === 403) return 'This form is not set up correctly. Please contact the business directly.';
    if (json.details?.length) return 'Please check the form:';
    return 'Something went wrong. Please try again.';
  }

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
    var custom = customValues();
    if (Object.keys(custom).length) formData.customFields = custom;
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
          .then((json) => ({ ok: res.ok, status: res.status, json: json || {} })),
      )
      .then((r) => {
        if (r.ok && r.json.success) {
          submission = null; // the next one is a new submission
          form.reset();
          markInvalid([]);
          show('success', `Thank you! Your request number is ${r.json.data.requestNumber}.`);
        } else {
          const details = r.json.details || [];
          markInvalid(details);
          const lines = details.map(sentence).filter((l, i, all) => all.indexOf(l) === i);
          show('error', failure(r.status, r.json), lines);
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
