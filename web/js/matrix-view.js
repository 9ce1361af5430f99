// The recommendation matrix: a real <table>, models as rows (one <tbody> per
// family), GPUs as columns grouped by class. Rows are kept between renders
// (by model) while the columns stay the same, so a sort or filter only moves
// rows; cell texts are written by matrix-fill.js.
(function (root) {
  var C = root.Caliper = root.Caliper || {};
  var el = C.dom.el;
  var GROUP_ORDER = ['custom', 'consumer', 'workstation', 'datacenter', 'china', 'other'];

  function create(table, callbacks) {
    var view = { table: table, refs: [], slots: [], colsKey: '', headKey: '', structure: '', active: null };
    table.addEventListener('click', function (e) { onClick(view, callbacks, e); });
    table.addEventListener('keydown', function (e) { C.matrixKeys.onKey(view, callbacks, e); });
    table.parentElement.addEventListener('scroll', function () { C.matrixFill.follow(view); }, { passive: true });
    view.render = function (matrix, ctx) { render(view, matrix, ctx); };
    view.windowFor = function (matrix, state) { return windowFor(view, matrix, state); };
    view.focusCell = function (modelId, gpuId) { C.matrixKeys.focus(view, modelId, gpuId); };
    return view;
  }

  function columnOrder(gpus) {
    var order = [];
    GROUP_ORDER.concat(['']).forEach(function (group) {
      gpus.forEach(function (g, i) {
        var known = GROUP_ORDER.indexOf(g.group) >= 0;
        if ((known && g.group === group) || (!known && group === '')) order.push(i);
      });
    });
    return order;
  }

  function compareNumbers(a, b, dir) {
    if (a == null && b == null) return 0;
    if (a == null) return 1;  // empty cells last in either direction
    if (b == null) return -1;
    return dir === 'desc' ? b - a : a - b;
  }

  // Rows as groups: [{family, rows: [modelIndex...]}]; one unnamed group when flat.
  function rowGroups(matrix, state) {
    var models = matrix.models, dir = state.dir;
    var idx = models.map(function (m, i) { return i; });
    if (state.sort === 'family') {
      var groups = [], byFamily = {};
      idx.forEach(function (i) {
        var f = models[i].family || '';
        if (!byFamily[f]) { byFamily[f] = { family: f, rows: [] }; groups.push(byFamily[f]); }
        byFamily[f].rows.push(i);
      });
      groups.forEach(function (g) {
        g.rows.sort(function (a, b) { return compareNumbers(models[a].params_b, models[b].params_b, 'asc') || a - b; });
      });
      return groups;
    }
    var training = C.state.isTraining(state);
    var gpuIndex = state.sort === 'gpu' ? matrix.gpus.map(function (g) { return g.id; }).indexOf(state.sg) : -1;
    idx.sort(function (a, b) {
      var r;
      if (state.sort === 'name') {
        r = String(models[a].name).localeCompare(String(models[b].name));
        r = dir === 'desc' ? -r : r;
      } else if (state.sort === 'gpu' && gpuIndex >= 0) {
        r = compareNumbers(C.cells.sortValue(matrix.cells[a][gpuIndex], state.show, training),
          C.cells.sortValue(matrix.cells[b][gpuIndex], state.show, training), dir);
      } else {
        r = compareNumbers(models[a].params_b, models[b].params_b, dir);
      }
      return r || a - b;
    });
    return [{ family: null, rows: idx }];
  }

  function render(view, matrix, ctx) {
    var s = ctx.state;
    var cols = columnOrder(matrix.gpus);
    var groups = rowGroups(matrix, s);
    var colsKey = JSON.stringify([matrix.gpus.map(function (g) { return g.id + '|' + g.name; }), cols, ctx.lang]);
    if (colsKey !== view.colsKey) {
      view.colsKey = colsKey;
      view.structure = '';
      view.headKey = '';
    }
    var headKey = JSON.stringify([colsKey, s.sort, s.dir, s.sg]);
    if (headKey !== view.headKey) {
      buildHead(view, matrix, cols, ctx);
      view.headKey = headKey;
    }
    // Same groups of the same sizes: the rows stay where they are and only
    // change which model they show (moving rows would rebuild their layout).
    var structure = JSON.stringify(groups.map(function (g) { return [g.family, g.rows.length]; }));
    if (structure !== view.structure) {
      buildBodies(view, matrix, cols, groups, ctx);
      view.structure = structure;
    } else {
      relabel(view, matrix, groups, ctx);
    }
    view.groups = groups;
    view.colCount = cols.length;
    C.matrixFill.fill(view, matrix, ctx);
    C.matrixKeys.restore(view);
  }

  function flatten(groups) {
    var order = [];
    groups.forEach(function (g) { order = order.concat(g.rows); });
    return order;
  }

  function relabel(view, matrix, groups, ctx) {
    flatten(groups).forEach(function (mi, i) {
      view.slots[i].mi = mi;
      if (view.refs[i]) showModel(view.refs[i], matrix.models[mi], mi, ctx);
    });
    view.matrix = matrix;
  }

  // Points a row at a model: its header, size and ids (cells follow in the fill).
  function showModel(ref, m, mi, ctx) {
    ref.mi = mi;
    if (ref.id === m.id && ref.name === m.name) return;
    ref.id = m.id;
    ref.name = m.name;
    ref.tr.dataset.modelId = m.id;
    ref.head.textContent = m.name;
    ref.head.title = m.name;
    ref.size.textContent = C.format.params(ctx.locale, m.params_b);
  }

  // The model and GPU indices the reader would see for this matrix and state
  // (the same window the fill writes at once).
  function windowFor(view, matrix, state) {
    var groups = rowGroups(matrix, state), cols = columnOrder(matrix.gpus);
    var order = flatten(groups);
    var win = C.matrixFill.visibleWindow(view, groups, order.length, cols.length);
    return { rows: order.slice(win.r0, win.r1), cols: cols.slice(win.c0, win.c1) };
  }

  function sortHeader(label, sortKey, ctx, gpuId) {
    var s = ctx.state;
    var active = s.sort === sortKey && (!gpuId || s.sg === gpuId);
    var th = el('th', { scope: 'col', 'aria-sort': active ? (s.dir === 'desc' ? 'descending' : 'ascending') : null });
    var btn = el('button', { type: 'button', class: 'sort', dataset: { sort: sortKey, gpu: gpuId || '' },
      title: ctx.t('matrix.sortBy', { name: label.title || label }) });
    btn.appendChild(label.node || document.createTextNode(label));
    btn.appendChild(el('span', { class: 'sort-mark', 'aria-hidden': 'true' }, active ? (s.dir === 'desc' ? '▼' : '▲') : ''));
    th.appendChild(btn);
    return th;
  }

  // Column label, the same for every card: the short name, then the memory
  // the driver reports, in GiB, on a second line.
  function gpuLabel(g, ctx) {
    var span = el('span', { class: 'gh' }, [el('span', { class: 'gname' }, shortGpuName(g.name))]);
    if (g.memory_gib != null) span.appendChild(el('span', { class: 'gmem' }, C.format.number(ctx.locale, g.memory_gib, 1) + ' GiB'));
    return { node: span, title: g.name };
  }

  // Vendor prefixes and the marketed memory size ("80GB") dropped to keep
  // columns narrow; the full name is the title.
  function shortGpuName(name) {
    var short = String(name).replace(/^(NVIDIA|AMD|Intel|Huawei|Apple)\s+/i, '')
      .replace(/^(GeForce|Radeon Instinct|Instinct|Tesla)\s+/i, '').replace(/\s+Generation\b/i, '')
      .replace(/\s*\(([^)]*)\)\s*$/, function (all, inner) { return inner.length <= 14 ? ' (' + inner + ')' : ''; })
      .replace(/\s*\b\d+(?:\.\d+)?\s*GB\b/gi, '').trim();
    return short || String(name);
  }

  // Fixed table layout: widths come from <col>s and the table's own width, so
  // a repaint never re-measures every cell. Widths are CSS variables.
  function colgroup(count) {
    var group = el('colgroup', null, [el('col', { class: 'col-name' }), el('col', { class: 'col-size' })]);
    for (var i = 0; i < count; i++) group.appendChild(el('col', { class: 'col-gpu' }));
    return group;
  }

  function buildHead(view, matrix, cols, ctx) {
    var table = view.table;
    var caption = table.querySelector('caption') || el('caption');
    var oldHead = table.querySelector('thead'), oldCols = table.querySelector('colgroup');
    if (oldHead) oldHead.remove();
    if (oldCols) oldCols.remove();
    table.insertBefore(caption, table.firstChild);
    var thead = el('thead', null, headerRows(matrix, cols, ctx));
    caption.insertAdjacentElement('afterend', colgroup(cols.length));
    table.querySelector('colgroup').insertAdjacentElement('afterend', thead);
    table.style.width = 'calc(var(--name-w) + var(--size-w) + ' + cols.length + ' * var(--cell-w))';
    if (view.refocus) {
      var parts = view.refocus.split('|');
      var again = C.dom.$all('button.sort', thead).filter(function (b) {
        return b.dataset.sort === parts[0] && (b.dataset.gpu || '') === parts[1];
      })[0];
      view.refocus = null;
      if (again) again.focus();
    }
  }

  // Two header rows: the class groups (colgroup headers) over the GPU names.
  function headerRows(matrix, cols, ctx) {
    var top = el('tr', { class: 'groups' });
    var corner = sortHeader(ctx.t('matrix.model'), 'name', ctx);
    corner.setAttribute('rowspan', '2');
    corner.className = 'corner';
    var sizeTh = sortHeader(ctx.t('matrix.size'), 'size', ctx);
    sizeTh.setAttribute('rowspan', '2');
    sizeTh.className = 'corner size';
    top.appendChild(corner);
    top.appendChild(sizeTh);
    var names = el('tr', { class: 'gpus' });
    var runGroup = null, runTh = null;
    cols.forEach(function (c, k) {
      var g = matrix.gpus[c];
      var startsGroup = g.group !== runGroup;
      if (startsGroup) {
        runGroup = g.group;
        runTh = el('th', { scope: 'colgroup', colspan: 0, class: 'grp' + (k > 0 ? ' first' : '') },
          [el('span', null, ctx.t('group.' + g.group))]);
        top.appendChild(runTh);
      }
      runTh.setAttribute('colspan', Number(runTh.getAttribute('colspan')) + 1);
      var th = sortHeader(gpuLabel(g, ctx), 'gpu', ctx, g.id);
      th.firstChild.tabIndex = -1;  // reached with ArrowUp from the cells (matrix-keys.js)
      th.dataset.gpuId = g.id;
      th.className = 'gcol' + (startsGroup && k > 0 ? ' first' : '');
      names.appendChild(th);
    });
    return [top, names];
  }

  function createRow(matrix, m, mi, cols, ctx) {
    var tr = el('tr');
    var head = tr.appendChild(el('th', { scope: 'row', class: 'mname' }));
    var size = tr.appendChild(el('td', { class: 'size' }));
    var cells = [];
    for (var k = 0; k < cols.length; k++) {
      var c = cols[k];
      var td = document.createElement('td');
      td.className = 'c';
      td.dataset.modelId = m.id;
      td.dataset.gpuId = matrix.gpus[c].id;
      var text = td.appendChild(document.createTextNode(''));
      cells.push({ td: td, text: text, cls: 'c', content: '', model: m.id, gi: c,
        first: k > 0 && matrix.gpus[c].group !== matrix.gpus[cols[k - 1]].group });
      tr.appendChild(td);
    }
    var ref = { id: null, name: null, tr: tr, head: head, size: size, cells: cells, mi: mi };
    showModel(ref, m, mi, ctx);
    return ref;
  }

  // One <tbody> per family. Rows are created on demand (view.ensureRow):
  // first those in view, then the rest on the following frames (matrix-fill.js).
  function buildBodies(view, matrix, cols, groups, ctx) {
    C.dom.$all('tbody', view.table).forEach(function (b) { b.remove(); });
    var frag = document.createDocumentFragment();
    var slots = [], span = cols.length + 2;
    groups.forEach(function (group) {
      var tbody = el('tbody');
      if (group.family !== null) {
        tbody.appendChild(el('tr', { class: 'fam' }, [el('th', { scope: 'rowgroup', colspan: span },
          [el('span', null, group.family || '—')])]));
      }
      group.rows.forEach(function (r) { slots.push({ tbody: tbody, mi: r }); });
      frag.appendChild(tbody);
    });
    view.slots = slots;
    view.matrix = matrix;
    view.refs = slots.map(function () { return null; });
    view.ensureRow = function (i) {
      if (view.refs[i] || !slots[i]) return view.refs[i];
      var slot = slots[i];
      var ref = createRow(view.matrix, view.matrix.models[slot.mi], slot.mi, cols, ctx);
      var next = null;
      for (var j = i + 1; j < slots.length && slots[j].tbody === slot.tbody; j++) {
        if (view.refs[j]) { next = view.refs[j].tr; break; }
      }
      slot.tbody.insertBefore(ref.tr, next);
      view.refs[i] = ref;
      return ref;
    };
    view.table.appendChild(frag);
  }

  function onClick(view, callbacks, e) {
    var btn = e.target.closest('button.sort');
    if (btn) {
      // The header is rebuilt with the new sort; keep the keyboard on this button.
      view.refocus = document.activeElement === btn ? btn.dataset.sort + '|' + (btn.dataset.gpu || '') : null;
      callbacks.onSort(btn.dataset.sort, btn.dataset.gpu || '');
      return;
    }
    var td = e.target.closest('td.c');
    if (td) {
      C.matrixKeys.focus(view, td.dataset.modelId, td.dataset.gpuId);
      callbacks.onOpen(td.dataset.modelId, td.dataset.gpuId);
    }
  }

  C.matrixView = { create: create, columnOrder: columnOrder, rowGroups: rowGroups, shortGpuName: shortGpuName };
  if (typeof module === 'object') module.exports = C.matrixView;
})(typeof window !== 'undefined' ? window : globalThis);
