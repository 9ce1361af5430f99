// The user's own model (first row) and GPU (first column) in the matrix.
// The engine's matrix takes catalog ids, so these cells come from one
// engine.estimate each (gpu_count "auto"), read into the matrix cell shape
// (matrix-data.js places them).
(function (root) {
  var C = root.Caliper = root.Caliper || {};
  var MODEL_ID = 'custom-model';
  var GPU_ID = 'custom-gpu';

  function modelRef(state, id) { return id === MODEL_ID && state.cm ? state.cm.model : id; }
  function gpuRef(state, id) { return id === GPU_ID && state.cg ? state.cg.gpu : id; }

  // An estimate at the fewest GPUs that fit, as a matrix cell.
  function cellFromEstimate(r, maxGpus) {
    var n = r.gpus_needed;
    var status = n == null || n > maxGpus ? 'no' : n === 1 ? 'fits' : r.plan && r.plan.nodes > 1 ? 'multi-node' : 'fits-multi';
    var usable = status !== 'no';
    return {
      gpus_needed: n, fits_one: n === 1, total_gib: r.memory ? r.memory.total_gib : null,
      decode_tokens_per_s: usable ? r.decode_tokens_per_s : null, prefill_tokens_per_s: usable ? r.prefill_tokens_per_s : null,
      train_tokens_per_s: usable ? r.train_tokens_per_s : null, train_hours: usable ? r.train_hours : null,
      usd_per_hour: usable ? r.usd_per_hour : null, usd_per_million_tokens: usable ? r.usd_per_million_tokens : null,
      cost_usd: usable ? r.cost_usd : null, status: status, strategy: r.strategy,
      nodes: r.plan ? r.plan.nodes : 1, needs_nvlink: !!(r.plan && r.plan.tp > 1), cny_per_usd: r.cny_per_usd
    };
  }

  // A cell from one estimate; an engine rejection becomes an empty cell and
  // the first one is kept on the job, for the page to show by its field.
  function estimateCell(state, model, gpu, job) {
    try {
      return cellFromEstimate(C.engine.estimate(C.state.toEstimateRequest(state, model, gpu, 'auto')), state.g);
    } catch (e) {
      if (job && !job.error) job.error = e;
      return { status: 'no', gpus_needed: null };
    }
  }

  C.customRows = { MODEL_ID: MODEL_ID, GPU_ID: GPU_ID, modelRef: modelRef, gpuRef: gpuRef,
    estimateCell: estimateCell, cellFromEstimate: cellFromEstimate };
  if (typeof module === 'object') module.exports = C.customRows;
})(typeof window !== 'undefined' ? window : globalThis);
