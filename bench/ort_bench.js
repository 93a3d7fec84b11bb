// Times ONNX Runtime's CPU execution (npm onnxruntime-node, used by this comparison script only)
// the way `ridge bench` times ridge: warm-up, then a fixed time budget; prints one JSON line.
// Usage: node bench/ort_bench.js MODEL.onnx BATCH THREADS SECONDS [SEQ]
const ort = require('onnxruntime-node');

async function main() {
  const [path, batchText, threadsText, secondsText, seqText] = process.argv.slice(2);
  const batch = Number(batchText), threads = Number(threadsText), seconds = Number(secondsText);
  const session = await ort.InferenceSession.create(path, {
    intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all', executionMode: 'sequential',
  });
  const feeds = {};
  for (const name of session.inputNames) {
    if (name === 'input') {
      const n = batch * 3 * 224 * 224;
      const data = new Float32Array(n);
      for (let i = 0; i < n; ++i) data[i] = Math.random() * 2 - 1;
      feeds[name] = new ort.Tensor('float32', data, [batch, 3, 224, 224]);
    } else {
      const seq = Number(seqText || 128), n = batch * seq;
      const data = new BigInt64Array(n);
      for (let i = 0; i < n; ++i) data[i] = name === 'input_ids' ? BigInt(Math.floor(Math.random() * 30522)) : 1n;
      feeds[name] = new ort.Tensor('int64', data, [batch, seq]);
    }
  }
  const warm = performance.now();
  for (let runs = 0; runs < 2 || performance.now() - warm < 500; ++runs) await session.run(feeds);
  const samples = [];
  const start = performance.now();
  while (samples.length < 3 || performance.now() - start < seconds * 1000) {
    const t = performance.now();
    await session.run(feeds);
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  console.log(JSON.stringify({mean, median: samples[Math.floor(samples.length / 2)], samples: samples.length}));
}

main().catch((e) => { console.error(e.message); process.exit(1); });
