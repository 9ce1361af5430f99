// The user's own model (first row of the matrix) and GPU (first column): the
// ids the page gives them, and the objects the engine gets in their place
// (matrix/data.js puts the objects inside the matrix request's lists; the
// other views put them in the request's model or gpu).
var MODEL_ID = 'custom-model';
var GPU_ID = 'custom-gpu';

// Warnings in which the engine says what it assumed to read the user's model
// (an unknown model_type, a bare parameter count): shown beside the model's
// name wherever it appears, never only inside a detail.
var READING_CODES = ['unknown_model_type', 'model_shape_assumed'];
function readingWarnings(result) {
  return ((result && result.warnings) || []).filter(function (w) { return READING_CODES.indexOf(w.code) >= 0; });
}

function modelRef(state, id) { return id === MODEL_ID && state.cm ? state.cm.model : id; }
function gpuRef(state, id) { return id === GPU_ID && state.cg ? state.cg.gpu : id; }

export { MODEL_ID, GPU_ID, modelRef, gpuRef, readingWarnings };
