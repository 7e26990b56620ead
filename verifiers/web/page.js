import { verifyBundle } from './verify-core.js';

const $ = (id) => document.getElementById(id);

async function check() {
  const steps = $('steps');
  steps.replaceChildren();
  let bundle;
  try {
    bundle = JSON.parse($('bundle').value);
  } catch (err) {
    show(false, [{ name: 'input', ok: false, detail: `not JSON: ${err.message}` }]);
    return;
  }
  const trusted = {};
  const signingKey = $('signing-key').value.trim();
  const logKey = $('log-key').value.trim();
  if (signingKey) trusted.signingKey = signingKey;
  if (logKey) trusted.logKey = logKey;
  trusted.witnesses = $('witnesses').value.split('\n').map((line) => line.trim()).filter(Boolean);
  const report = await verifyBundle(bundle, trusted);
  show(report.valid, report.steps);
}

function show(valid, steps) {
  const verdict = $('verdict');
  verdict.textContent = valid ? 'VALID' : 'INVALID';
  verdict.className = valid ? 'valid' : 'invalid';
  $('steps').replaceChildren(
    ...steps.map((s) => {
      const li = document.createElement('li');
      li.className = s.ok ? 'ok' : 'fail';
      li.dataset.step = s.name;
      li.textContent = `${s.name}: ${s.detail}`;
      return li;
    }),
  );
}

$('check').addEventListener('click', check);
const drop = $('drop');
drop.addEventListener('dragover', (e) => {
  e.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', async (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  const file = e.dataTransfer.files[0];
  if (file) {
    $('bundle').value = await file.text();
    await check();
  }
});
