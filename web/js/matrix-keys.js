// Keyboard navigation across matrix cells with a roving tabindex: one cell is
// in the tab order; arrows, Home/End and PageUp/PageDown move it; Enter or
// Space opens the scenario.
(function (root) {
  var C = root.Caliper = root.Caliper || {};
  var PAGE_ROWS = 10;

  function find(view, modelId, gpuId) {
    for (var r = 0; r < view.refs.length; r++) {
      var ref = view.refs[r];
      if (!ref || ref.id !== modelId) continue;
      var cells = ref.cells;
      for (var k = 0; k < cells.length; k++) {
        if (cells[k].td.dataset.gpuId === gpuId) return { r: r, k: k };
      }
    }
    return null;
  }

  function setActive(view, r, k, doFocus) {
    if (!view.refs.length) return;
    r = Math.max(0, Math.min(view.refs.length - 1, r));
    var row = view.ensureRow(r);
    if (!row || !row.cells.length) return;
    k = Math.max(0, Math.min(row.cells.length - 1, k));
    var td = row.cells[k].td;
    if (view.activeTd && view.activeTd !== td) view.activeTd.removeAttribute('tabindex');
    td.tabIndex = 0;
    view.activeTd = td;
    view.active = { m: td.dataset.modelId, g: td.dataset.gpuId, r: r, k: k };
    if (doFocus) {
      td.focus({ preventScroll: true });
      td.scrollIntoView({ block: 'nearest', inline: 'nearest' });
      C.matrixFill.follow(view);  // a cell far from the last view gets its text on the next frame
    }
  }

  function focus(view, modelId, gpuId) {
    var pos = find(view, modelId, gpuId);
    if (pos) setActive(view, pos.r, pos.k, true);
  }

  // After a render: keep the same model × GPU active (and focused if it was).
  function restore(view) {
    var hadFocus = view.activeTd && document.activeElement === view.activeTd;
    var wasInTable = view.table.contains(document.activeElement) || hadFocus;
    var pos = view.active ? find(view, view.active.m, view.active.g) : null;
    if (view.activeTd && !view.table.contains(view.activeTd)) view.activeTd = null;
    if (pos) setActive(view, pos.r, pos.k, hadFocus || (wasInTable && document.activeElement === document.body));
    else setActive(view, 0, 0, false);
  }

  function move(view, e) {
    var a = view.active;
    if (!a) return false;
    var lastRow = view.refs.length - 1;
    var lastCol = view.ensureRow(a.r).cells.length - 1;
    switch (e.key) {
      case 'ArrowRight': setActive(view, a.r, a.k + 1, true); break;
      case 'ArrowLeft': setActive(view, a.r, a.k - 1, true); break;
      case 'ArrowDown': setActive(view, a.r + 1, a.k, true); break;
      case 'ArrowUp': setActive(view, a.r - 1, a.k, true); break;
      case 'PageDown': setActive(view, a.r + PAGE_ROWS, a.k, true); break;
      case 'PageUp': setActive(view, a.r - PAGE_ROWS, a.k, true); break;
      case 'Home': setActive(view, e.ctrlKey ? 0 : a.r, 0, true); break;
      case 'End': setActive(view, e.ctrlKey ? lastRow : a.r, lastCol, true); break;
      default: return false;
    }
    return true;
  }

  // Column headers are out of the tab order (a hundred buttons before the
  // first cell would be a long walk); ArrowUp from the first row reaches them.
  function headerButtons(view) { return C.dom.$all('thead tr.gpus button.sort', view.table); }

  function onHeaderKey(view, button, e) {
    var buttons = headerButtons(view), k = buttons.indexOf(button);
    if (k < 0) return;
    var next = { ArrowLeft: k - 1, ArrowRight: k + 1, Home: 0, End: buttons.length - 1 }[e.key];
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      setActive(view, 0, k, true);
    } else if (next !== undefined && buttons[next]) {
      e.preventDefault();
      buttons[next].focus();
    }
  }

  function onKey(view, callbacks, e) {
    var header = e.target.closest && e.target.closest('thead tr.gpus button.sort');
    if (header) { onHeaderKey(view, header, e); return; }
    var td = e.target.closest && e.target.closest('td.c');
    if (!td) return;
    if (!view.active || view.activeTd !== td) {
      var pos = find(view, td.dataset.modelId, td.dataset.gpuId);
      if (pos) setActive(view, pos.r, pos.k, false);
    }
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      callbacks.onOpen(td.dataset.modelId, td.dataset.gpuId);
      return;
    }
    if (e.key === 'ArrowUp' && view.active && view.active.r === 0) {
      var button = headerButtons(view)[view.active.k];
      if (button) { e.preventDefault(); button.focus(); return; }
    }
    if (move(view, e)) e.preventDefault();
  }

  C.matrixKeys = { onKey: onKey, focus: focus, restore: restore };
})(typeof window !== 'undefined' ? window : globalThis);
