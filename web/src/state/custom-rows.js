// The user's own model (first row of the matrix) and GPU (first column): the
// ids the page gives them, and the objects the engine gets in their place
// (matrix/data.js puts the objects inside the matrix request's lists; the
// other views put them in the request's model or gpu).
var MODEL_ID = 'custom-model';
var GPU_ID = 'custom-gpu';

function modelRef(state, id) { return id === MODEL_ID && state.cm ? state.cm.model : id; }
function gpuRef(state, id) { return id === GPU_ID && state.cg ? state.cg.gpu : id; }

export { MODEL_ID, GPU_ID, modelRef, gpuRef };
