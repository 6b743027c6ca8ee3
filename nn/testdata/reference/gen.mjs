// gen.mjs — reference outputs for package nn, computed with onnxruntime
// (CPU, onnxruntime-node from npm). Run once; the outputs are committed.
//
// How to run (Node 20+, from this directory):
//
//	npm ci --ignore-scripts && node gen.mjs
//
// (--ignore-scripts skips onnxruntime-node's optional CUDA download; the CPU
// library ships inside the npm package.)
//
// Stage 1 (only if the HTWK frames are present, see HTWK_DIR below): crop and
// resample real NAO camera frames into the network input arrays and write
// them to ../inputs/*.u8 (raw bytes, row-major over the model input shape;
// every input value is an integer 0..255 and is fed as float32 of that
// value). Stage 2: run every net on those committed arrays with onnxruntime
// and write reference.json. onnxruntime is never used at run time.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';
import * as ort from 'onnxruntime-node';

const here = path.dirname(fileURLToPath(import.meta.url));
const nets = path.join(here, '..', 'bhuman-nets-2025');
const inputsDir = path.join(here, '..', 'inputs');
const htwkDir = process.env.HTWK_DIR ||
  path.join(here, '..', '..', '..', '..', 'shared', 'testdata', 'vision', 'htwk-vision-2015');

const frames = [
  // Hand labels (approximate) from shared/testdata/vision/htwk-vision-2015/labels.json.
  { id: 'f1', file: 'ChinaTest2015GAB03B_AnyBallTest3_00049806_U.png', ball: [22, 217, 21] },
  { id: 'f2', file: 'ChinaTest2015GAB03B_AnyBallTest3_00051659_U.png', ball: [283, 252, 20] },
  { id: 'f3', file: 'ChinaTest2015GAB03B_AnyBallTest3_00070111_U.png', ball: [544, 295, 17] },
];

// Non-ball 32x32 patches: [frame, centre x, centre y, side, what].
const otherPatches = [
  ['f1', 320, 420, 64, 'field'],
  ['f2', 157, 100, 64, 'goalpost'],
  ['f3', 420, 170, 96, 'boundary'],
  ['f1', 330, 260, 64, 'line'],
];

function loadFrame(f) {
  const png = PNG.sync.read(fs.readFileSync(path.join(htwkDir, f.file)));
  const { width: w, height: h, data } = png; // RGBA
  const ch = (c) => {
    const out = new Float64Array(w * h);
    for (let i = 0; i < w * h; i++) out[i] = data[4 * i + c];
    return out;
  };
  const R = ch(0), G = ch(1), B = ch(2);
  // BT.601 full-range YUV (JPEG convention).
  const Y = new Float64Array(w * h), U = new Float64Array(w * h), V = new Float64Array(w * h);
  for (let i = 0; i < w * h; i++) {
    Y[i] = 0.299 * R[i] + 0.587 * G[i] + 0.114 * B[i];
    U[i] = 128 - 0.168736 * R[i] - 0.331264 * G[i] + 0.5 * B[i];
    V[i] = 128 + 0.5 * R[i] - 0.418688 * G[i] - 0.081312 * B[i];
  }
  return { w, h, R, G, B, Y, U, V };
}

// Area-average resampling of the square/rect [x0,x0+sw)x[y0,y0+sh) of plane p
// to ow x oh, replicating border pixels outside the image; rounded to 0..255.
function resample(fr, p, x0, y0, sw, sh, ow, oh) {
  const out = new Uint8Array(ow * oh);
  const sub = 4; // supersampling per output pixel and axis
  for (let oy = 0; oy < oh; oy++) {
    for (let ox = 0; ox < ow; ox++) {
      let s = 0;
      for (let j = 0; j < sub; j++) {
        for (let i = 0; i < sub; i++) {
          let x = Math.floor(x0 + (ox + (i + 0.5) / sub) * sw / ow);
          let y = Math.floor(y0 + (oy + (j + 0.5) / sub) * sh / oh);
          x = Math.min(Math.max(x, 0), fr.w - 1);
          y = Math.min(Math.max(y, 0), fr.h - 1);
          s += p[y * fr.w + x];
        }
      }
      out[oy * ow + ox] = Math.min(255, Math.max(0, Math.round(s / (sub * sub))));
    }
  }
  return out;
}

function interleave(planes) {
  const n = planes[0].length, c = planes.length;
  const out = new Uint8Array(n * c);
  for (let i = 0; i < n; i++) for (let k = 0; k < c; k++) out[i * c + k] = planes[k][i];
  return out;
}

function makeInputs() {
  fs.mkdirSync(inputsDir, { recursive: true });
  const fr = {};
  for (const f of frames) fr[f.id] = loadFrame(f);
  const write = (name, bytes) => fs.writeFileSync(path.join(inputsDir, name), bytes);
  // 32x32 grey patches (ball / penalty mark / intersection classifiers).
  for (const f of frames) {
    const [cx, cy, r] = f.ball;
    const side = Math.round(3 * r);
    write(`patch32_${f.id}_ball.u8`, resample(fr[f.id], fr[f.id].Y, cx - side / 2, cy - side / 2, side, side, 32, 32));
  }
  for (const [id, cx, cy, side, what] of otherPatches) {
    write(`patch32_${id}_${what}.u8`, resample(fr[id], fr[id].Y, cx - side / 2, cy - side / 2, side, side, 32, 32));
  }
  for (const f of frames) {
    const F = fr[f.id];
    const rgb = (w, h) => interleave([F.R, F.G, F.B].map((p) => resample(F, p, 0, 0, F.w, F.h, w, h)));
    write(`rgb80x60_${f.id}.u8`, rgb(80, 60));
    write(`rgb40x30_${f.id}.u8`, rgb(40, 30));
    if (f.id === 'f3') continue; // two BOP frames are enough
    // 320x240 "YUYV pair": channel 0 = Y, channel 1 = U at even x, V at odd x.
    const Y = resample(F, F.Y, 0, 0, F.w, F.h, 320, 240);
    const U = resample(F, F.U, 0, 0, F.w, F.h, 320, 240);
    const V = resample(F, F.V, 0, 0, F.w, F.h, 320, 240);
    const uv = new Uint8Array(320 * 240);
    for (let i = 0; i < uv.length; i++) uv[i] = (i % 2 === 0 ? U : V)[i];
    write(`yuyv320x240_${f.id}.u8`, interleave([Y, uv]));
  }
}

const patchNames = ['f1_ball', 'f2_ball', 'f3_ball', 'f1_field', 'f2_goalpost', 'f3_boundary', 'f1_line'];

// Each case: model file, batch size, inputs (u8 files concatenated along the
// batch axis, or literal float values).
const cases = [];
for (const p of patchNames) {
  cases.push({ model: 'BallAndPenaltyMarkPerceptor__multihead.onnx', batch: 1,
    inputs: [{ name: 'args_0', shape: [1, 32, 32, 1], files: [`patch32_${p}.u8`] }] });
}
for (const [i, p] of ['f1_line', 'f2_goalpost', 'f1_field', 'f3_ball'].entries()) {
  cases.push({ model: 'IntersectionsClassifier__distanceUpdatedModel.onnx', batch: 1,
    inputs: [
      { name: 'img_inputs', shape: [1, 32, 32, 1], files: [`patch32_${p}.u8`] },
      { name: 'dist_inputs', shape: [1, 1], values: [[0.8, 1.5, 3.0, 5.0][i]] },
    ] });
}
for (const f of frames) {
  cases.push({ model: 'RobotDetector__4_anchor_boxes_model_no_activation_20230629-220730.onnx', batch: 1,
    inputs: [{ name: 'args_0', shape: [1, 60, 80, 3], files: [`rgb80x60_${f.id}.u8`] }] });
  cases.push({ model: 'FieldBoundary__net.onnx', batch: 1,
    inputs: [{ name: 'input', shape: [1, 30, 40, 3], files: [`rgb40x30_${f.id}.u8`] }] });
  cases.push({ model: 'FieldBoundary__net-uncertainty.onnx', batch: 1,
    inputs: [{ name: 'input', shape: [1, 30, 40, 3], files: [`rgb40x30_${f.id}.u8`] }] });
}
for (const f of frames.slice(0, 2)) {
  cases.push({ model: 'BOP__net.onnx', batch: 1,
    inputs: [{ name: 'args_0', shape: [1, 240, 320, 2], files: [`yuyv320x240_${f.id}.u8`] }] });
}
// Batched runs (dynamic batch dimension).
cases.push({ model: 'FieldBoundary__net.onnx', batch: 3,
  inputs: [{ name: 'input', shape: [3, 30, 40, 3], files: frames.map((f) => `rgb40x30_${f.id}.u8`) }] });
cases.push({ model: 'IntersectionsClassifier__distanceUpdatedModel.onnx', batch: 2,
  inputs: [
    { name: 'img_inputs', shape: [2, 32, 32, 1], files: ['patch32_f1_line.u8', 'patch32_f2_goalpost.u8'] },
    { name: 'dist_inputs', shape: [2, 1], values: [1.0, 2.0] },
  ] });

async function main() {
  if (fs.existsSync(path.join(htwkDir, frames[0].file))) {
    makeInputs();
    console.log('inputs written to', inputsDir);
  } else {
    console.log('HTWK frames not found at', htwkDir, '- using committed inputs');
  }
  const sessions = {};
  const out = {
    generator: 'nn/testdata/reference/gen.mjs',
    onnxruntime: JSON.parse(fs.readFileSync(path.join(here, 'node_modules', 'onnxruntime-node', 'package.json'))).version,
    note: 'Input values are the u8 bytes of the listed files (concatenated along the batch axis) as float32, or the literal values.',
    cases: [],
  };
  for (const c of cases) {
    sessions[c.model] ??= await ort.InferenceSession.create(path.join(nets, c.model));
    const s = sessions[c.model];
    const feeds = {};
    for (const inp of c.inputs) {
      let data;
      if (inp.files) {
        const bytes = Buffer.concat(inp.files.map((f) => fs.readFileSync(path.join(inputsDir, f))));
        data = Float32Array.from(bytes);
      } else {
        data = Float32Array.from(inp.values);
      }
      const n = inp.shape.reduce((a, b) => a * b, 1);
      if (data.length !== n) throw new Error(`${c.model} ${inp.name}: ${data.length} values, want ${n}`);
      feeds[inp.name] = new ort.Tensor('float32', data, inp.shape);
    }
    const res = await s.run(feeds);
    const outputs = s.outputNames.map((name) => ({
      name, shape: res[name].dims.map(Number), data: Array.from(res[name].data),
    }));
    out.cases.push({ ...c, outputs });
    console.log(c.model, c.inputs.map((i) => (i.files || i.values).join('+')).join(' '), outputs.map((o) => o.shape.join('x')).join(' '));
  }
  fs.writeFileSync(path.join(here, 'reference.json'), JSON.stringify(out, null, 1) + '\n');
}

await main();
