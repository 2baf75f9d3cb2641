// JupyterLab: "Check with the hidden tests" in every notebook's toolbar (the button is declared in
// schema/plugin.json). It saves the notebook, asks the notebook's own kernel to send the saved file to the
// course's checks service (reading_maths.checks.client.lab, evaluated as a user expression: nothing is
// printed into the notebook and no cell is added), and shows the answer as plain text in a small panel.
// Plain JavaScript with no imports, built by `make hub-lab` (@jupyterlab/builder) into labextension/.

const COMMAND = 'reading-maths:check';
const BOX = 'reading-maths-check';

function notebookOf(app) {
  const widget = app.shell.currentWidget;
  const ok = widget && widget.context && widget.sessionContext && widget.context.path.endsWith('.ipynb');
  return ok ? widget : null;
}

function panel(lines, state) {
  let box = document.getElementById(BOX);
  if (!box) {
    box = document.createElement('div');
    box.id = BOX;
    box.setAttribute('role', 'dialog');
    box.style.cssText = 'position:fixed;right:1.5em;bottom:1.5em;z-index:10000;max-width:44em;max-height:70vh;' +
      'overflow:auto;background:var(--jp-layout-color1,#fff);color:var(--jp-ui-font-color1,#222);' +
      'border:1px solid var(--jp-border-color1,#999);box-shadow:0 2px 12px rgba(0,0,0,.25);padding:.8em 1em;' +
      'font-family:var(--jp-code-font-family,monospace);font-size:12px;white-space:pre-wrap';
    document.body.appendChild(box);
  }
  box.replaceChildren();
  box.dataset.state = state;
  const close = document.createElement('button');
  close.textContent = 'Close';
  close.className = BOX + '-close';
  close.style.cssText = 'float:right;margin-left:1em';
  close.onclick = () => box.remove();
  box.appendChild(close);
  for (const line of lines) {
    const div = document.createElement('div');
    div.textContent = line; // the student's own text may be in it: never HTML
    box.appendChild(div);
  }
  return box;
}

async function check(app) {
  const nb = notebookOf(app);
  if (!nb) {
    return;
  }
  const path = nb.context.path;
  panel([`Saving ${path} and checking it with the hidden tests…`], 'running');
  try {
    await nb.context.save();
    const kernel = nb.sessionContext.session && nb.sessionContext.session.kernel;
    if (!kernel) {
      throw new Error('the notebook has no kernel: start one (Kernel > Restart Kernel) and press the button again');
    }
    const expression = `__import__('reading_maths.checks.client', fromlist=['lab']).lab(${JSON.stringify(path)})`;
    const future = kernel.requestExecute({
      code: '', silent: true, store_history: false, user_expressions: { check: expression }
    });
    const reply = await future.done;
    const result = reply.content.user_expressions.check;
    if (!result || result.status !== 'ok') {
      throw new Error(result ? `${result.ename}: ${result.evalue}` : 'no answer from the kernel');
    }
    const data = result.data['application/json'];
    panel(data.lines, 'refused' in data.answer ? 'refused' : 'graded');
  } catch (error) {
    panel([`The check could not be run: ${error.message}`], 'error');
  }
}

module.exports = [{
  id: 'reading-maths-checks:plugin',
  description: 'Check with the hidden tests (the course checks service)',
  autoStart: true,
  activate: (app) => {
    app.commands.addCommand(COMMAND, {
      label: 'Check with the hidden tests',
      caption: 'Grade the saved notebook with the hidden tests, within the limits your instructor set',
      isEnabled: () => notebookOf(app) !== null,
      execute: () => check(app)
    });
  }
}];
