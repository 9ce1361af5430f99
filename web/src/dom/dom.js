// DOM helpers. Text always goes in through textContent or text nodes, never
// as HTML, so catalog, file and URL text cannot inject markup.

// el('td', {class: 'c', dataset: {modelId: 'x'}, onclick: fn}, ['text', childNode])
function el(tag, attrs, children) {
  var node = document.createElement(tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

function setAttrs(node, attrs) {
  if (!attrs) return node;
  Object.keys(attrs).forEach(function (key) {
    var v = attrs[key];
    if (v == null || v === false) return;
    if (key === 'class') node.className = v;
    else if (key === 'text') node.textContent = v;
    else if (key === 'dataset') Object.keys(v).forEach(function (k) { node.dataset[k] = v[k]; });
    else if (key.slice(0, 2) === 'on' && typeof v === 'function') node.addEventListener(key.slice(2), v);
    else if (key === 'value' || key === 'checked' || key === 'selected') node[key] = v;
    else node.setAttribute(key, v === true ? '' : String(v));
  });
  return node;
}

function append(node, children) {
  if (children == null) return node;
  (Array.isArray(children) ? children : [children]).forEach(function (c) {
    if (c == null || c === false) return;
    node.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
  });
  return node;
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

function replace(node, children) { return append(clear(node), children); }

function $(selector, scope) { return (scope || document).querySelector(selector); }
function $all(selector, scope) { return Array.prototype.slice.call((scope || document).querySelectorAll(selector)); }

// Options for a <select> from [{value, label}] or [{label, options: [...]}] groups.
function fillSelect(select, items, selected) {
  clear(select);
  items.forEach(function (item) {
    if (item.options) {
      var group = el('optgroup', { label: item.label });
      item.options.forEach(function (o) { group.appendChild(option(o, selected)); });
      select.appendChild(group);
    } else {
      select.appendChild(option(item, selected));
    }
  });
  if (selected != null) select.value = selected;
}

function option(o, selected) {
  return el('option', { value: o.value, selected: o.value === selected }, o.label);
}

// A message next to a field, linked by aria-describedby; empty text removes it.
// detail: a secondary text (the engine's English message beside a
// translated one), the message's title.
function fieldError(field, message, detail) {
  if (!field) return;
  var id = field.id + '-error';
  var box = document.getElementById(id);
  if (!message) {
    if (box) box.remove();
    field.removeAttribute('aria-invalid');
    field.removeAttribute('aria-describedby');
    return;
  }
  if (!box) {
    box = el('p', { id: id, class: 'field-error', role: 'alert' });
    field.insertAdjacentElement('afterend', box);
  }
  box.textContent = message;
  if (detail) box.title = detail; else box.removeAttribute('title');
  field.setAttribute('aria-invalid', 'true');
  field.setAttribute('aria-describedby', id);
}

export { el, setAttrs, append, clear, replace, $, $all, fillSelect, fieldError };
