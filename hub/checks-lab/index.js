// JupyterLab: "Check with the hidden tests" in every notebook's toolbar (the button is declared in
// schema/plugin.json). It saves the notebook, asks the notebook's own kernel to send the saved file to the
// course's checks service (reading_maths.checks.client.lab, evaluated as a user expression: nothing is
// printed into the notebook and no cell is added), and shows the answer in a dialog beside the notebook: one row
// per question (points, a result in words and a symbol, the messages), the time in the student's zone and in words.
//
// nbgrader's Assignments tab: each assignment's due date in the student's own time zone, the time left and the
// course's late policy, one line under its row, from the checks service's api/deadlines (read afresh from the
// course's nbgrader_config.py at each look); a Submit after the due date asks first, with the penalty it costs
// at that moment, and says so when it replaces an on-time submission.
// Plain JavaScript with no imports, built by `make hub-lab` (@jupyterlab/builder) into labextension/.

const COMMAND = 'reading-maths:check';
const BOX = 'reading-maths-check';

function notebookOf(app) {
  const widget = app.shell.currentWidget;
  const ok = widget && widget.context && widget.sessionContext && widget.context.path.endsWith('.ipynb');
  return ok ? widget : null;
}

// the answer's box: a dialog beside the notebook (not modal: the notebook stays usable), keyboard first
function panel(state, fill) {
  let box = document.getElementById(BOX);
  if (!box) {
    box = document.createElement('div');
    box.id = BOX;
    box.setAttribute('role', 'dialog');
    box.setAttribute('aria-labelledby', BOX + '-title');
    box.tabIndex = -1;
    box.style.cssText = 'position:fixed;right:1.5em;bottom:1.5em;z-index:10000;max-width:52em;max-height:70vh;' +
      'overflow:auto;background:var(--jp-layout-color1,#fff);color:var(--jp-ui-font-color1,#222);' +
      'border:1px solid var(--jp-border-color1,#999);box-shadow:0 2px 12px rgba(0,0,0,.25);padding:.8em 1em;' +
      'font-family:var(--jp-ui-font-family,sans-serif);font-size:var(--jp-ui-font-size1,13px)';
    box.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.stopPropagation();
        box.remove();
      }
    });
    document.body.appendChild(box);
  }
  box.replaceChildren();
  box.dataset.state = state;
  box.setAttribute('aria-busy', state === 'running' ? 'true' : 'false');
  const close = document.createElement('button');
  close.textContent = 'Close';
  close.className = BOX + '-close jp-mod-styled';
  close.setAttribute('aria-label', 'Close the check\'s answer');
  close.style.cssText = 'float:right;margin-left:1em';
  close.onclick = () => box.remove();
  box.appendChild(close);
  fill(box); // the student's own text may be in it: textContent only, never HTML
  if (state !== 'running') {
    box.focus();
  }
  return box;
}

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) {
    node.textContent = text;
  }
  if (className) {
    node.className = className;
  }
  return node;
}

function title(text) {
  const heading = element('h2', text, BOX + '-title');
  heading.id = BOX + '-title';
  heading.style.cssText = 'font-size:1.15em;margin:0 0 .4em';
  return heading;
}

function say(lines, state) {
  return panel(state, (box) => {
    box.appendChild(title(lines[0]));
    for (const line of lines.slice(1)) {
      box.appendChild(element('p', line));
    }
  });
}

// a question's result in words and a symbol, never colour alone (as the service's pages: checks/words.py)
function mark(q) {
  if (['error', 'timeout', 'missing'].includes(q.status)) {
    return [q.status, { error: '⚠ error', timeout: '⚠ timed out', missing: '⚠ missing' }[q.status]];
  }
  if (!('score' in q)) {
    return ['hidden', '—'];
  }
  if (q.score >= q.max_score) {
    return ['full', '✓ full marks'];
  }
  return q.score > 0 ? ['part', '◐ some points'] : ['none', '✗ no points'];
}

// a moment in words, from now, in the student's zone: "just now", "in 42 minutes", "today 17:03", "yesterday 17:03"
function inWords(date) {
  const seconds = (date - new Date()) / 1000;
  if (Math.abs(seconds) < 60) {
    return seconds <= 0 ? 'just now' : 'in less than a minute';
  }
  if (Math.abs(seconds) < 3600) {
    return seconds > 0 ? `in ${span(seconds)}` : `${span(seconds)} ago`;
  }
  const day = (d) => new Date(d.getFullYear(), d.getMonth(), d.getDate());
  const days = Math.round((day(date) - day(new Date())) / 86400000);
  const clock = date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  const named = { 0: 'today', '-1': 'yesterday', 1: 'tomorrow' }[days];
  return named ? `${named} ${clock}` :
    date.toLocaleString(undefined, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
}

function timeElement(date) {
  const node = element('time', `${inWords(date)} (${localTime(date)})`);
  node.dateTime = date.toISOString();
  return node;
}

function showAnswer(answer, asked) {
  if ('refused' in answer) {
    return panel('refused', (box) => {
      box.appendChild(title('Check refused'));
      box.appendChild(element('p', `Check refused: ${answer.refused}`, BOX + '-reason'));
      if (answer.next_allowed) {
        const next = element('p', 'Next check allowed ', BOX + '-next');
        next.appendChild(timeElement(new Date(answer.next_allowed)));
        next.appendChild(document.createTextNode('.'));
        box.appendChild(next);
      }
    });
  }
  return panel('graded', (box) => {
    const total = 'score' in answer ? `: ${answer.score} / ${answer.max_score} points` : '';
    box.appendChild(title(`Check ${answer.id} of ${answer.notebook}${total}`));
    const when = element('p', 'Checked ', BOX + '-when');
    when.appendChild(timeElement(asked));
    when.appendChild(document.createTextNode('. Your grade comes from the notebook you submit.'));
    box.appendChild(when);
    const table = element('table', null, BOX + '-questions');
    table.style.cssText = 'border-collapse:collapse;width:100%';
    const caption = element('caption', 'One row per question: points, result and messages');
    caption.style.cssText = 'text-align:left;font-weight:bold;padding:.3em 0';
    table.appendChild(caption);
    const head = table.createTHead().insertRow();
    for (const name of ['Question', 'Points', 'Result', 'Messages']) {
      const th = element('th', name);
      th.scope = 'col';
      th.style.cssText = 'text-align:left;border-bottom:1px solid var(--jp-border-color1,#999);padding:.25em .5em';
      head.appendChild(th);
    }
    const body = table.createTBody();
    for (const q of answer.questions) {
      const row = body.insertRow();
      const [kind, words] = mark(q);
      row.className = 'question';
      row.dataset.id = q.id;
      row.dataset.result = kind;
      const name = element('th', q.id);
      name.scope = 'row';
      row.appendChild(name);
      row.appendChild(element('td', 'score' in q ? `${q.score} / ${q.max_score}` : `out of ${q.max_score}`, 'points'));
      row.appendChild(element('td', words, 'mark ' + kind));
      const messages = element('td', null, 'messages');
      if ((q.feedback || []).length > 0) {
        const list = element('ul');
        list.style.cssText = 'margin:0;padding-left:1.2em';
        for (const line of q.feedback) {
          list.appendChild(element('li', line));
        }
        messages.appendChild(list);
      }
      row.appendChild(messages);
      for (const cell of row.children) {
        cell.style.cssText = 'text-align:left;vertical-align:top;border-bottom:1px solid var(--jp-border-color2,#ddd);' +
          'padding:.25em .5em';
      }
    }
    box.appendChild(table);
    for (const line of answer.errors || []) {
      box.appendChild(element('p', `Note: ${line}`, BOX + '-note'));
    }
    const more = element('p');
    const link = element('a', 'All your checks');
    link.href = serviceUrl('');
    link.target = '_blank';
    link.rel = 'noopener';
    link.style.cssText = 'color:var(--jp-content-link-color,#0d47a1);text-decoration:underline';
    more.appendChild(link);
    box.appendChild(more);
  });
}

async function check(app) {
  const nb = notebookOf(app);
  if (!nb) {
    return;
  }
  const path = nb.context.path;
  say([`Saving ${path} and checking it with the hidden tests…`], 'running');
  const asked = new Date();
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
    showAnswer(data.answer, asked);
  } catch (error) {
    say(['The check could not be run', error.message], 'error');
  }
}

// -- deadlines in nbgrader's Assignments tab -------------------------------------------------------------

const LIST = 'nbgrader-assignment-list';
const DUE = 'reading-maths-due';
const DIALOG = 'reading-maths-late';
const FRESH_MS = 15000; // the deadlines are asked again when the list changes, at most this often

function pageConfig() {
  const node = document.getElementById('jupyter-config-data');
  try {
    return node ? JSON.parse(node.textContent) : {};
  } catch (error) {
    return {};
  }
}

function serviceUrl(path) {
  // the hub's services live beside its prefix: /hub/ -> /services/checks/
  return (pageConfig().hubPrefix || '/hub/').replace(/hub\/?$/, '') + 'services/checks/' + path;
}

function cookie(name) {
  const found = document.cookie.split('; ').find((c) => c.startsWith(name + '='));
  return found ? decodeURIComponent(found.slice(name.length + 1)) : null;
}

// a GET from the student's own Jupyter server, as JupyterLab's own requests are made (its XSRF token)
async function fromServer(path) {
  const headers = {};
  const xsrf = cookie('_xsrf');
  if (xsrf) {
    headers['X-XSRFToken'] = xsrf;
  }
  const response = await fetch((pageConfig().baseUrl || '/') + path,
    { credentials: 'same-origin', cache: 'no-store', headers });
  if (!response.ok) {
    throw new Error(`the server answered ${response.status}`);
  }
  return response.json();
}

// the browser's zone, for the checks service's pages (which run no script): a cookie of theirs
function shareZone() {
  const prefix = serviceUrl('');
  const zone = zoneName();
  if (/^[A-Za-z0-9_+\-/]+$/.test(zone)) { // an IANA name, as it is: a cookie needs no quoting for it
    document.cookie = `reading_maths_tz=${zone}; path=${prefix}; max-age=31536000; SameSite=Strict`;
  }
}

// "Fri 12 Feb 2027, 12:00 EST": the student's own zone and the browser's language
function localTime(date) {
  return date.toLocaleString(undefined, {
    weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit',
    timeZoneName: 'short'
  });
}

function zoneName() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'your time zone';
  } catch (error) {
    return 'your time zone';
  }
}

// a length of time in words, its two largest units: "3 days 4 hours", "42 minutes", "less than a minute"
function span(seconds) {
  let left = Math.floor(Math.abs(seconds) / 60);
  if (left < 1) {
    return 'less than a minute';
  }
  const units = [['day', 1440], ['hour', 60], ['minute', 1]];
  const words = [];
  for (const [name, size] of units) {
    const count = Math.floor(left / size);
    if (count > 0 && words.length < 2) {
      words.push(`${count} ${name}${count === 1 ? '' : 's'}`);
      left -= count * size;
    } else if (words.length > 0) {
      break;
    }
  }
  return words.join(' ');
}

// "in 3 days 4 hours" or "2 days 3 hours ago"
function relative(seconds) {
  return seconds >= 0 ? `in ${span(seconds)}` : `${span(seconds)} ago`;
}

const deadlineState = { data: null, skew: 0, asked: 0, pending: null, error: null };

async function askDeadlines(force) {
  const now = Date.now();
  if (!force && deadlineState.data && now - deadlineState.asked < FRESH_MS) {
    return deadlineState.data;
  }
  if (deadlineState.pending) {
    return deadlineState.pending;
  }
  deadlineState.pending = (async () => {
    try {
      const data = await fromServer('reading-maths/deadlines'); // the checks service's api/deadlines
      if (data.error || !data.assignments) {
        throw new Error(data.error || 'no deadlines');
      }
      deadlineState.data = data;
      deadlineState.asked = Date.now();
      deadlineState.skew = Date.parse(data.now) - Date.now(); // the service's clock, not the laptop's
      deadlineState.error = null;
      return data;
    } catch (error) {
      deadlineState.error = error;
      return deadlineState.data;
    } finally {
      deadlineState.pending = null;
    }
  })();
  return deadlineState.pending;
}

function deadlineOf(data, assignment) {
  return data ? data.assignments.find((a) => a.id === assignment) : undefined;
}

function secondsLeft(item) {
  return (Date.parse(item.due) - (Date.now() + deadlineState.skew)) / 1000;
}

// one line: "Due Fri 12 Feb 2027, 12:00 EST (in 3 days 4 hours). Late work: 10 % of the score per started day late."
function dueLine(item, data) {
  const left = secondsLeft(item);
  const due = new Date(item.due);
  const when = left >= 0 ? `in ${span(left)}` : `${span(left)} ago: a submission now is late`;
  return `Due ${localTime(due)} (${when}). Late work: ${data.policy}.`;
}

function rowsOf(list) {
  return Array.from(list.querySelectorAll('.list_item')).filter((row) => row.querySelector(':scope > .col-md-12 > .item_name'));
}

function assignmentOfRow(row) {
  const name = row.querySelector(':scope > .col-md-12 > .item_name');
  return name ? name.textContent.trim() : null;
}

function annotate(list) {
  const data = deadlineState.data;
  for (const row of rowsOf(list)) {
    const assignment = assignmentOfRow(row);
    const item = deadlineOf(data, assignment);
    let line = row.querySelector(`:scope > .col-md-12 > .${DUE}`);
    if (!item) {
      if (line) {
        line.remove();
      }
      continue;
    }
    if (!line) {
      line = document.createElement('div');
      line.className = DUE;
      line.style.cssText = 'clear:both;padding:.15em 0 .3em 15px;font-size:var(--jp-ui-font-size1,13px);' +
        'color:var(--jp-ui-font-color1,#222)';
      row.querySelector(':scope > .col-md-12').appendChild(line);
    }
    const text = dueLine(item, data);
    if (line.textContent !== text) {
      line.textContent = text;
    }
    line.dataset.due = item.due;
    line.dataset.late = secondsLeft(item) < 0 ? 'yes' : 'no';
    line.title = `Times in ${zoneName()}; the due date is the course's (${item.source}).`;
  }
}

function watchList() {
  const list = document.getElementById(LIST);
  if (!list || list.dataset.readingMathsWatched) {
    return;
  }
  list.dataset.readingMathsWatched = 'yes';
  const refresh = async () => {
    await askDeadlines(false);
    annotate(list);
  };
  let scheduled = false;
  new MutationObserver(() => {
    if (!scheduled) {
      scheduled = true;
      setTimeout(() => { scheduled = false; refresh(); }, 50);
    }
  }).observe(list, { childList: true, subtree: true });
  refresh();
}

// -- a late Submit is a choice -------------------------------------------------------------------------------

// nbgrader's own timestamps ("2027-02-12 16:59:59.123456 UTC") as a Date
function nbgraderTime(text) {
  const iso = String(text).trim().replace(' UTC', 'Z').replace(' ', 'T').replace(/(\.\d{3})\d+/, '$1');
  const date = new Date(iso);
  return isNaN(date) ? null : date;
}

async function submissionsOf(course, assignment) {
  try {
    const listed = await fromServer(`assignments?course_id=${encodeURIComponent(course)}`);
    const found = (listed.value || []).find((a) => a.status === 'submitted' && a.assignment_id === assignment);
    return found ? (found.submissions || []).map((s) => nbgraderTime(s.timestamp)).filter((d) => d) : [];
  } catch (error) {
    return [];
  }
}

function ask(title, paragraphs, yes, no) {
  return new Promise((resolve) => {
    const before = document.activeElement;
    const shade = document.createElement('div');
    shade.id = DIALOG;
    shade.style.cssText = 'position:fixed;inset:0;z-index:10001;background:rgba(0,0,0,.35);display:flex;' +
      'align-items:center;justify-content:center';
    const box = document.createElement('div');
    box.setAttribute('role', 'alertdialog');
    box.setAttribute('aria-modal', 'true');
    box.setAttribute('aria-labelledby', DIALOG + '-title');
    box.setAttribute('aria-describedby', DIALOG + '-body');
    box.style.cssText = 'max-width:36em;background:var(--jp-layout-color1,#fff);color:var(--jp-ui-font-color1,#222);' +
      'border:1px solid var(--jp-border-color1,#999);box-shadow:0 2px 12px rgba(0,0,0,.3);padding:1em 1.2em;' +
      'font-size:var(--jp-ui-font-size1,13px)';
    const heading = document.createElement('h2');
    heading.id = DIALOG + '-title';
    heading.textContent = title;
    heading.style.cssText = 'margin:0 0 .6em;font-size:1.2em';
    const body = document.createElement('div');
    body.id = DIALOG + '-body';
    for (const text of paragraphs) {
      const p = document.createElement('p');
      p.textContent = text;
      p.style.margin = '0 0 .6em';
      body.appendChild(p);
    }
    const buttons = document.createElement('div');
    buttons.style.cssText = 'display:flex;justify-content:flex-end;gap:.6em;margin-top:.8em';
    const cancel = document.createElement('button');
    cancel.textContent = no;
    cancel.className = 'jp-Dialog-button jp-mod-reject jp-mod-styled ' + DIALOG + '-cancel';
    const go = document.createElement('button');
    go.textContent = yes;
    go.className = 'jp-Dialog-button jp-mod-warn jp-mod-accept jp-mod-styled ' + DIALOG + '-submit';
    buttons.append(cancel, go);
    box.append(heading, body, buttons);
    shade.appendChild(box);
    const done = (answer) => {
      shade.remove();
      if (before && before.focus) {
        before.focus();
      }
      resolve(answer);
    };
    cancel.onclick = () => done(false);
    go.onclick = () => done(true);
    shade.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        done(false);
      } else if (event.key === 'Tab') { // the focus stays in the dialog
        event.preventDefault();
        (document.activeElement === cancel ? go : cancel).focus();
      }
      event.stopPropagation();
    });
    document.body.appendChild(shade);
    cancel.focus(); // the safe answer is the default
  });
}

function percent(value) {
  return `${Math.round(value * 100) / 100} %`;
}

async function confirmLate(button, row) {
  const assignment = assignmentOfRow(row);
  const course = (row.querySelector(':scope > .col-md-12 > .item_course') || {}).textContent || '';
  const data = await askDeadlines(true); // the penalty at this moment, the date as the course has it now
  const item = deadlineOf(data, assignment);
  if (!item || secondsLeft(item) >= 0) {
    return true;
  }
  const due = new Date(item.due);
  const late = span(secondsLeft(item));
  const cost = item.penalty_percent === null ? 'a penalty the course\'s policy sets' :
    item.penalty_percent > 0 ? `${percent(item.penalty_percent)} of the score` : 'no penalty';
  const text = [
    `${assignment} was due ${localTime(due)}, ${late} ago. Submitting now is late: it costs ${cost} ` +
    `(the course's policy: ${data.policy}).`
  ];
  const earlier = await submissionsOf(course.trim() || data.course_id, assignment);
  const onTime = earlier.filter((d) => d <= due);
  if (earlier.length > 0) {
    const last = earlier[earlier.length - 1];
    text.push(onTime.length > 0 ?
      `You submitted ${assignment} on time (${localTime(onTime[onTime.length - 1])}). Only your last submission ` +
      'is graded: this late one replaces it, and the penalty applies.' :
      `You have submitted ${assignment} before (${localTime(last)}). Only your last submission is graded: this ` +
      'one replaces it.');
  }
  return ask(`Submit ${assignment} late?`, text, 'Submit late', 'Cancel');
}

const confirmed = new WeakSet();

function onSubmitClick(event) {
  const button = event.target && event.target.closest ? event.target.closest('button') : null;
  const list = button ? button.closest('#fetched_assignments_list') : null;
  if (!list || button.textContent.trim() !== 'Submit') {
    return;
  }
  if (confirmed.has(button)) { // the student said yes: nbgrader's own handler submits
    confirmed.delete(button);
    return;
  }
  event.preventDefault();
  event.stopImmediatePropagation();
  const row = button.closest('.list_item');
  confirmLate(button, row).then((yes) => {
    if (yes) {
      confirmed.add(button);
      button.click();
    }
  });
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
    document.addEventListener('click', onSubmitClick, true); // before nbgrader's own handler
    shareZone();
    setInterval(() => {
      watchList();
      const list = document.getElementById(LIST);
      if (list && deadlineState.data) {
        annotate(list); // the time left, as it runs down
      }
    }, 1000);
  }
}];
