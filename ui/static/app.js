// Drover UI: fills the page the server rendered from the public HTTP API
// and keeps it live from the event stream (/v1/event/stream). Plain
// JavaScript, no dependencies; every request goes to the agent's origin.
'use strict';

(() => {
  const ENDED = new Set(['complete', 'failed', 'lost']);
  const MAX_RUN_REASON = 'allocation exceeded max_run_duration';
  const TICK_MS = 250;
  const RETRY_MS = 2000;

  const body = document.body;
  const pageName = body.dataset.page;
  const pageID = body.dataset.id;
  const pageNS = body.dataset.namespace || 'default';

  // ---- DOM ----------------------------------------------------------------

  // el builds an element: el('a', {href: '/x', class: 'y'}, 'text', child).
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'class') node.className = value;
      else node.setAttribute(key, value === true ? '' : value);
    }
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  function byID(id) { return document.getElementById(id); }

  // fill replaces an element's children.
  function fill(node, ...children) {
    if (!node) return;
    node.replaceChildren();
    for (const child of children.flat(Infinity)) {
      if (child !== undefined && child !== null && child !== false) node.append(child instanceof Node ? child : String(child));
    }
  }

  // rows fills a table's body, or says it is empty.
  function rows(table, trs, emptyText) {
    const tbody = table.tBodies[0];
    if (trs.length === 0) {
      const cols = table.tHead.rows[0].cells.length;
      fill(tbody, el('tr', {}, el('td', {colspan: cols, class: 'empty'}, emptyText)));
      return;
    }
    fill(tbody, trs);
  }

  function showError(message) {
    const node = byID('error');
    node.hidden = !message;
    node.textContent = message || '';
  }

  // ---- the ACL token ------------------------------------------------------------
  // The secret ID the user set on the token page, kept in this browser's
  // local storage (as Nomad's UI keeps it) and sent as X-Nomad-Token with
  // every request to the agent. Without one the agent answers as it
  // answers anyone: what its anonymous policy allows, or everything when
  // ACLs are off.

  const TOKEN_KEY = 'nomadTokenSecret';
  const TOKEN_NAME_KEY = 'droverTokenName';
  const TOKENS_PATH = '/ui/settings/tokens';

  // stored reads and writes local storage, which a browser may refuse
  // (storage disabled, a private window's quota): then nothing is kept.
  const stored = {
    get(key) { try { return window.localStorage.getItem(key) || ''; } catch { return ''; } },
    set(key, value) { try { window.localStorage.setItem(key, value); return true; } catch { return false; } },
    remove(key) { try { window.localStorage.removeItem(key); } catch { /* nothing was kept */ } },
  };

  function tokenSecret() { return stored.get(TOKEN_KEY); }

  // A secret goes in a header: printable ASCII, no spaces (a UUID).
  const SECRET_FORM = /^[\x21-\x7e]{1,256}$/;

  // ---- API ------------------------------------------------------------------

  const enc = encodeURIComponent;

  class APIError extends Error {
    constructor(path, status, message) {
      super(`${path}: ${status} ${message}`);
      this.status = status;
      this.reason = message;
    }
  }

  // apiFetch asks the agent, with the token set (or the one given).
  function apiFetch(path, {secret = tokenSecret(), headers = {}, ...init} = {}) {
    const h = new Headers(headers);
    if (secret) h.set('X-Nomad-Token', secret);
    return fetch(path, {cache: 'no-store', ...init, headers: h});
  }

  // get reads a JSON endpoint and the index its answer reflects.
  async function get(path, secret) {
    const resp = await apiFetch(path, {secret, headers: {Accept: 'application/json'}});
    if (!resp.ok) throw new APIError(path, resp.status, (await resp.text()).trim());
    return {body: await resp.json(), index: Number(resp.headers.get('X-Nomad-Index') || 0)};
  }

  // ---- time -----------------------------------------------------------------

  const nsToMs = (ns) => ns / 1e6;
  const pad = (n) => String(n).padStart(2, '0');

  // duration renders milliseconds as 7s, 1m 05s or 2h 03m 00s.
  function duration(ms) {
    const s = Math.max(0, Math.round(ms / 1000));
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const sec = s % 60;
    if (h) return `${h}h ${pad(m)}m ${pad(sec)}s`;
    if (m) return `${m}m ${pad(sec)}s`;
    return `${sec}s`;
  }

  // relative says when a moment is from now: "in 4s", "2s ago", "now".
  function relative(ms, now) {
    const d = ms - now;
    if (Math.abs(d) < 500) return 'now';
    return d > 0 ? `in ${duration(d)}` : `${duration(-d)} ago`;
  }

  function absolute(ms) {
    const d = new Date(ms);
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  }

  // ---- live text ------------------------------------------------------------
  // A live element's text is a function of the time, redrawn every tick:
  // countdowns, "3s ago". It reads the allocation it was made for; a new
  // answer from the API replaces the element.

  function live(tag, attrs, fn) {
    const node = el(tag, attrs);
    setLive(node, fn);
    return node;
  }

  function setLive(node, fn) {
    node.classList.add('live-text');
    node.liveText = fn;
    node.textContent = fn(Date.now());
  }

  function tick() {
    const now = Date.now();
    for (const node of document.querySelectorAll('.live-text')) {
      const text = node.liveText(now);
      if (node.textContent !== text) node.textContent = text;
    }
  }

  function ago(ns) {
    return live('span', {title: ns ? absolute(nsToMs(ns)) : null}, (now) => (ns ? relative(nsToMs(ns), now) : '—'));
  }

  // ---- the deadline -----------------------------------------------------------
  // The same reading of the servers' deadline fields (MaxRunDeadline,
  // MaxRunExceeded) as the CLI's: an allocation that ended on its own
  // never reached its deadline, one the deadline stopped says so.

  function ended(a) { return ENDED.has(a.ClientStatus); }

  function deadlineText(a, now) {
    if (!a.MaxRunDeadline) return '—';
    if (ended(a) && !a.MaxRunExceeded) return 'not reached';
    const ms = nsToMs(a.MaxRunDeadline);
    return `${absolute(ms)} (${relative(ms, now)})`;
  }

  function timeLeftText(a, now) {
    if (!a.MaxRunDeadline) return '—';
    const deadline = nsToMs(a.MaxRunDeadline);
    const left = deadline - now;
    if (a.MaxRunExceeded && left > 0) return 'none (exceeded)';
    if (a.MaxRunExceeded || (left <= 0 && !ended(a))) return `none (exceeded ${left > -1000 ? 'just now' : relative(deadline, now)})`;
    if (ended(a)) return `none (allocation ${a.ClientStatus})`;
    return duration(Math.ceil(left / 1000) * 1000);
  }

  // exact renders a configured duration in nanoseconds exactly, as the
  // CLI does and Go's duration syntax reads: 500ms, 1h30m30s, 2h, 1.5s.
  function exact(ns) {
    const hour = 3600e9, minute = 60e9;
    const h = Math.floor(ns / hour);
    const m = Math.floor((ns - h * hour) / minute);
    const rest = ns - h * hour - m * minute;
    let out = (h ? `${h}h` : '') + (m ? `${m}m` : '');
    if (rest >= 1e9) out += `${+(rest / 1e9).toFixed(9)}s`;
    else if (rest >= 1e6) out += `${+(rest / 1e6).toFixed(6)}ms`;
    else if (rest >= 1e3) out += `${+(rest / 1e3).toFixed(3)}µs`;
    else if (rest > 0) out += `${rest}ns`;
    return out || '0s';
  }

  // budget renders a max_run_duration in nanoseconds, exactly.
  function budget(ns) { return ns ? exact(ns) : '—'; }

  // budgetSource says where an allocation's budget comes from when it is
  // not its group's own, as alloc status does (MaxRunScope).
  function budgetSource(a) {
    switch (a.MaxRunScope) {
      case 'dispatch': return ' (set by dispatch)';
      case 'allocation': return ' (changed for this allocation)';
      case 'job': return ' (job-wide budget: what is left of it)';
      case 'deadline': return ' (cut to the job\'s deadline)';
      default: return null;
    }
  }

  // ---- pieces -----------------------------------------------------------------

  function badge(status) {
    return el('span', {class: `badge s-${status || 'unknown'}`}, status || 'unknown');
  }

  function timeoutBadge(text) {
    return el('span', {class: 'badge timeout', title: MAX_RUN_REASON}, text || 'timed out');
  }

  // allocStatus is an allocation's client status, marked when its
  // deadline stopped it, so that a timeout never reads as a plain complete.
  function allocStatus(a) {
    return el('span', {class: 'status'}, badge(a.ClientStatus), a.MaxRunExceeded ? [' ', timeoutBadge()] : null);
  }

  const shortID = (id) => (id || '').slice(0, 8);
  const jobPath = (id, ns) => `/ui/jobs/${enc(id)}@${enc(ns || 'default')}`;
  const allocPath = (id) => `/ui/allocations/${enc(id)}`;
  const nodePath = (id) => `/ui/clients/${enc(id)}`;

  function allocLink(a) { return el('a', {href: allocPath(a.ID), class: 'mono', title: a.ID}, shortID(a.ID)); }
  function nodeLink(a) { return a.NodeID ? el('a', {href: nodePath(a.NodeID)}, a.NodeName || shortID(a.NodeID)) : '—'; }

  // allocRow is an allocation in a table; withJob adds its job.
  function allocRow(a, withJob) {
    return el('tr', {class: a.MaxRunExceeded ? 'timed-out' : null, 'data-alloc': a.ID},
      el('td', {}, allocLink(a)),
      withJob ? el('td', {}, el('a', {href: jobPath(a.JobID, a.Namespace)}, a.JobID)) : null,
      el('td', {}, a.TaskGroup),
      withJob ? null : el('td', {}, nodeLink(a)),
      el('td', {}, allocStatus(a)),
      el('td', {class: 'nowrap'}, live('span', {}, (now) => deadlineText(a, now))),
      el('td', {class: 'nowrap countdown'}, live('span', {}, (now) => timeLeftText(a, now))),
      el('td', {class: 'nowrap'}, ago(a.CreateTime)),
      el('td', {class: 'nowrap'}, ago(a.ModifyTime)));
  }

  function byNewest(a, b) { return (b.CreateIndex || 0) - (a.CreateIndex || 0) || (a.ID < b.ID ? -1 : 1); }

  // counts lists how many allocations are in each state: "2 running".
  // PendingExpired (Drover's) counts placements given up for
  // max_pending_duration, which never became allocations.
  const STATES = [['Queued', 'queued'], ['Starting', 'starting'], ['Running', 'running'],
    ['Complete', 'complete'], ['Failed', 'failed'], ['Lost', 'lost'], ['Unknown', 'unknown'],
    ['PendingExpired', 'pending-expired', 'exceeded max_pending_duration']];

  function counts(summaries) {
    const total = {};
    for (const s of summaries) for (const [field] of STATES) total[field] = (total[field] || 0) + (s[field] || 0);
    const parts = STATES.filter(([field]) => total[field]).map(([field, name, label]) =>
      el('span', {class: `s-${name}`}, `${total[field]} ${label || name}`));
    return parts.length ? el('span', {class: 'counts'}, parts) : el('span', {class: 'empty'}, 'none');
  }

  function facts(list, pairs) {
    fill(list, pairs.filter(Boolean).map(([term, value]) => el('div', {}, el('dt', {}, term), el('dd', {}, value))));
  }

  // ---- pages ------------------------------------------------------------------
  // Each page loads what it shows and returns the index its reads reflect;
  // the event stream then wakes it for the events its topics name.

  const pages = {};

  pages.jobs = {
    topics: ['Job', 'Allocation'],
    namespace: '*',
    async load() {
      const [jobs, allocs] = await Promise.all([
        get('/v1/jobs?namespace=*'),
        get('/v1/allocations?namespace=*&task_states=false'),
      ]);
      const timedOut = new Map();
      for (const a of currentAllocs(allocs.body, jobs.body)) {
        if (!a.MaxRunExceeded) continue;
        const key = `${a.Namespace}\u0000${a.JobID}`;
        timedOut.set(key, (timedOut.get(key) || 0) + 1);
      }
      const list = [...jobs.body].sort((a, b) => (a.ID < b.ID ? -1 : a.ID > b.ID ? 1 : 0));
      rows(byID('jobs'), list.map((job) => {
        const summaries = Object.values((job.JobSummary && job.JobSummary.Summary) || {});
        const n = timedOut.get(`${job.Namespace}\u0000${job.ID}`) || 0;
        return el('tr', {class: n ? 'timed-out' : null, 'data-job': job.ID},
          el('td', {}, el('a', {href: jobPath(job.ID, job.Namespace)}, job.ID)),
          el('td', {}, job.Namespace),
          el('td', {}, job.Type),
          el('td', {}, badge(job.Status)),
          el('td', {class: 'num'}, summaries.length),
          el('td', {}, counts(summaries)),
          el('td', {class: 'timeouts'}, n ? timeoutBadge(`${n} timed out`) : el('span', {class: 'empty'}, '—')));
      }), 'No jobs. Run one with drover job run.');
      return Math.max(jobs.index, allocs.index);
    },
  };

  // currentAllocs keeps the allocations of jobs as they now exist: those of
  // a job that was purged, and of an earlier job of the same ID that was
  // purged before this one was run, stay in the cluster's state until they
  // are collected, but no longer count (as /v1/job/:id/allocations
  // without ?all=true). An allocation of a job's current registration was
  // created after it: its CreateIndex is the larger.
  function currentAllocs(allocs, jobs) {
    const created = new Map(jobs.map((j) => [`${j.Namespace}\u0000${j.ID}`, j.CreateIndex]));
    return allocs.filter((a) => {
      const index = created.get(`${a.Namespace}\u0000${a.JobID}`);
      return index !== undefined && a.CreateIndex >= index;
    });
  }

  pages.job = {
    topics: [`Job:${pageID}`, `Allocation:${pageID}`, `Evaluation:${pageID}`],
    namespace: pageNS,
    async load() {
      const base = `/v1/job/${enc(pageID)}`;
      const q = `?namespace=${enc(pageNS)}`;
      const [job, allocs, summary] = await Promise.all([get(base + q), get(`${base}/allocations${q}`), get(`${base}/summary${q}`)]);
      const j = job.body;
      const timedOut = allocs.body.filter((a) => a.MaxRunExceeded).length;
      const given = Object.values((summary.body && summary.body.Summary) || {})
        .reduce((n, s) => n + (s.PendingExpired || 0), 0);
      fill(byID('job-status'), badge(j.Status), j.Stop ? [' ', badge('stop')] : null,
        timedOut ? [' ', timeoutBadge(`${timedOut} timed out`)] : null,
        given ? [' ', timeoutBadge(`${given} exceeded max_pending_duration`)] : null);
      facts(byID('job-summary'), [
        ['Type', j.Type],
        ['Namespace', j.Namespace],
        ['Priority', j.Priority],
        ['Datacenters', (j.Datacenters || []).join(', ') || '—'],
        ['Node pool', j.NodePool || 'default'],
        ['Version', j.Version],
        ['Submitted', ago(j.SubmitTime)],
        j.StatusDescription ? ['Status description', j.StatusDescription] : null,
      ]);
      const groupSummary = (summary.body && summary.body.Summary) || {};
      rows(byID('groups'), (j.TaskGroups || []).map((tg) => el('tr', {},
        el('td', {}, tg.Name),
        el('td', {class: 'num'}, tg.Count),
        el('td', {}, budget(tg.MaxRunDuration)),
        el('td', {}, (tg.Tasks || []).map((t) => `${t.Name} (${t.Driver})`).join(', ')),
        el('td', {}, counts(groupSummary[tg.Name] ? [groupSummary[tg.Name]] : [])))), 'No task groups.');
      rows(byID('allocations'), [...allocs.body].sort(byNewest).map((a) => allocRow(a, false)), 'No allocations placed.');
      return Math.max(job.index, allocs.index, summary.index);
    },
  };

  // The allocation page keeps which log panes the user opened or closed
  // across the redraws the event stream causes.
  const logOpen = new Map();

  pages.allocation = {
    topics: [`Allocation:${pageID}`],
    namespace: '*',
    async load() {
      const {body: a, index} = await get(`/v1/allocation/${enc(pageID)}`);
      const jobLink = () => el('a', {href: jobPath(a.JobID, a.Namespace)}, a.JobID);
      fill(byID('crumb-job'), a.JobID);
      byID('crumb-job').href = jobPath(a.JobID, a.Namespace);
      fill(byID('alloc-job'), jobLink());
      fill(byID('alloc-group'), a.TaskGroup);
      fill(byID('alloc-node'), nodeLink(a));
      fill(byID('client-status'), allocStatus(a));
      fill(byID('client-description'), a.ClientDescription || '—');
      fill(byID('desired-status'), badge(a.DesiredStatus), a.DesiredDescription ? ` ${a.DesiredDescription}` : null);
      fill(byID('created'), absolute(nsToMs(a.CreateTime)), ' (', ago(a.CreateTime), ')');
      fill(byID('modified'), absolute(nsToMs(a.ModifyTime)), ' (', ago(a.ModifyTime), ')');
      for (const row of document.querySelectorAll('.maxrun')) row.hidden = !a.MaxRunDeadline;
      fill(byID('max-run-duration'), budget(a.MaxRunDuration), budgetSource(a));
      setLive(byID('deadline'), (now) => deadlineText(a, now));
      setLive(byID('time-left'), (now) => timeLeftText(a, now));
      await renderTasks(a);
      return index;
    },
  };

  function taskOrder(a) {
    const names = Object.keys(a.TaskStates || {});
    const group = a.Job && (a.Job.TaskGroups || []).find((tg) => tg.Name === a.TaskGroup);
    const declared = group ? (group.Tasks || []).map((t) => t.Name) : [];
    return [...declared.filter((n) => names.includes(n)), ...names.filter((n) => !declared.includes(n)).sort()];
  }

  function eventDescription(ev) {
    if (ev.DisplayMessage) return ev.DisplayMessage;
    if (ev.Type === 'Terminated') return `Exit Code: ${ev.ExitCode}`;
    return ev.DriverError || ev.SetupError || ev.KillReason || ev.RestartReason || ev.Message || '';
  }

  // isFailure mirrors structs.TaskEvent.IsFailure: the task could not be
  // set up or started, or exited with an error or on a signal.
  function isFailure(ev) {
    if (ev.Type === 'Terminated') return ev.ExitCode !== 0 || ev.Signal !== 0;
    return ['Setup Failure', 'Failed Artifact Download', 'Driver Failure'].includes(ev.Type);
  }

  // eventClass marks the rows that explain how the allocation ended: the
  // failures before the kill and, for a plain timeout, the kill. When the
  // deadline passed while a task was failing, the description names the
  // failure, and the failure, not the kill, is what the page points at.
  function eventClass(a, ev, killedAt) {
    const failingAtDeadline = (a.ClientDescription || '').startsWith(`${MAX_RUN_REASON} while `);
    if (isFailure(ev) && (killedAt === undefined || ev.Time < killedAt)) return 'failure-event';
    if (!failingAtDeadline && eventDescription(ev) === MAX_RUN_REASON) return 'timeout-event';
    return null;
  }

  async function renderTasks(a) {
    const names = taskOrder(a);
    if (names.length === 0) {
      fill(byID('tasks'), el('p', {class: 'empty'}, 'No task has started yet.'));
      return;
    }
    const logs = await Promise.all(names.map((name) => Promise.all([logTail(a, name, 'stdout'), logTail(a, name, 'stderr')])));
    fill(byID('tasks'), names.map((name, i) => {
      const ts = a.TaskStates[name];
      const events = [...(ts.Events || [])].sort((x, y) => y.Time - x.Time);
      const killing = events.filter((ev) => ev.Type === 'Killing').map((ev) => ev.Time);
      const killedAt = killing.length ? Math.min(...killing) : undefined;
      const details = el('details', {class: 'logs', 'data-task': name, open: logOpen.get(name) !== false},
        el('summary', {}, 'Log tail'),
        logs[i].map(([type, text]) => [el('h4', {class: 'sr-only'}, type), el('pre', {class: 'log', 'aria-label': `${name} ${type}`}, text || `(no ${type})`)]));
      details.addEventListener('toggle', () => logOpen.set(name, details.open));
      return el('section', {class: 'task', 'aria-label': `Task ${name}`, 'data-task': name},
        el('h3', {}, el('span', {class: 'mono'}, name), badge(ts.State), ts.Failed ? badge('failed') : null),
        el('dl', {class: 'facts'},
          el('div', {}, el('dt', {}, 'Started'), el('dd', {}, ts.StartedAt && !ts.StartedAt.startsWith('0001') ? absolute(Date.parse(ts.StartedAt)) : '—')),
          el('div', {}, el('dt', {}, 'Finished'), el('dd', {}, ts.FinishedAt && !ts.FinishedAt.startsWith('0001') ? absolute(Date.parse(ts.FinishedAt)) : '—')),
          el('div', {}, el('dt', {}, 'Restarts'), el('dd', {}, ts.Restarts || 0))),
        el('div', {class: 'table-wrap'}, el('table', {class: 'list'},
          el('thead', {}, el('tr', {}, el('th', {scope: 'col'}, 'Time'), el('th', {scope: 'col'}, 'Type'), el('th', {scope: 'col'}, 'Description'))),
          el('tbody', {}, events.length ? events.map((ev) => {
            return el('tr', {class: eventClass(a, ev, killedAt)},
              el('td', {class: 'nowrap'}, absolute(nsToMs(ev.Time))), el('td', {}, ev.Type), el('td', {}, eventDescription(ev)));
          }) : el('tr', {}, el('td', {colspan: 3, class: 'empty'}, 'No events.'))))),
        details);
    }));
  }

  // logTail reads the end of a task's stdout or stderr through the agent.
  async function logTail(a, task, type) {
    const path = `/v1/client/fs/logs/${enc(a.ID)}?task=${enc(task)}&type=${type}&origin=end&offset=4096&plain=true`;
    try {
      const resp = await apiFetch(path);
      if (!resp.ok) return [type, `(logs unavailable: ${(await resp.text()).trim()})`];
      return [type, await resp.text()];
    } catch (err) {
      return [type, `(logs unavailable: ${err.message})`];
    }
  }

  pages.clients = {
    topics: ['Node', 'Allocation', 'Job'],
    namespace: '*',
    async load() {
      const [nodes, allocs, jobs] = await Promise.all([get('/v1/nodes'), get('/v1/allocations?namespace=*&task_states=false'), get('/v1/jobs?namespace=*')]);
      const byNode = new Map();
      for (const a of currentAllocs(allocs.body, jobs.body)) {
        const c = byNode.get(a.NodeID) || {running: 0, total: 0, timedOut: 0};
        c.total++;
        if (a.ClientStatus === 'running') c.running++;
        if (a.MaxRunExceeded) c.timedOut++;
        byNode.set(a.NodeID, c);
      }
      const list = [...nodes.body].sort((a, b) => (a.Name < b.Name ? -1 : 1));
      rows(byID('clients'), list.map((n) => {
        const c = byNode.get(n.ID) || {running: 0, total: 0, timedOut: 0};
        return el('tr', {'data-node': n.ID},
          el('td', {}, el('a', {href: nodePath(n.ID)}, n.Name), ' ', el('span', {class: 'mono empty', title: n.ID}, shortID(n.ID))),
          el('td', {}, badge(n.Status), n.Drain ? [' ', badge('draining')] : null),
          el('td', {}, badge(n.SchedulingEligibility)),
          el('td', {}, n.Datacenter),
          el('td', {}, n.NodePool || 'default'),
          el('td', {}, drivers(n.Drivers)),
          el('td', {}, `${c.running} running / ${c.total}`),
          el('td', {}, c.timedOut ? timeoutBadge(`${c.timedOut} timed out`) : el('span', {class: 'empty'}, '—')));
      }), 'No clients have registered.');
      return Math.max(nodes.index, allocs.index, jobs.index);
    },
  };

  // The test-only driver that dev agents have (drivers/mock) is left out
  // of what users are shown.
  const testDriver = 'mock_driver';

  function drivers(list) {
    const names = Object.keys(list || {}).filter((d) => list[d].Detected && d !== testDriver).sort();
    if (!names.length) return el('span', {class: 'empty'}, 'none');
    return el('span', {class: 'counts'}, names.map((d) =>
      el('span', {class: list[d].Healthy ? 's-complete' : 's-failed', title: list[d].HealthDescription || null}, list[d].Healthy ? d : `${d} (unhealthy)`)));
  }

  pages.client = {
    topics: [`Node:${pageID}`, 'Allocation'],
    namespace: '*',
    relevant: (e) => e.Topic === 'Node' || (e.Payload && e.Payload.Allocation && e.Payload.Allocation.NodeID === pageID),
    async load() {
      const [node, allocs] = await Promise.all([get(`/v1/node/${enc(pageID)}`), get(`/v1/node/${enc(pageID)}/allocations`)]);
      const n = node.body;
      fill(byID('node-name'), n.Name);
      fill(byID('node-status'), badge(n.Status), ' ', badge(n.SchedulingEligibility), n.Drain ? [' ', badge('draining')] : null);
      const attrs = n.Attributes || {};
      facts(byID('node-summary'), [
        ['ID', el('span', {class: 'mono'}, n.ID)],
        ['Datacenter', n.Datacenter],
        ['Node pool', n.NodePool || 'default'],
        ['Class', n.NodeClass || '—'],
        ['Address', n.HTTPAddr || '—'],
        ['OS', [attrs['os.name'], attrs['os.version']].filter(Boolean).join(' ') || attrs['kernel.name'] || '—'],
        ['Drover', attrs['nomad.version'] || '—'],
        ['Status changed', ago(n.StatusUpdatedAt ? n.StatusUpdatedAt * 1e9 : 0)],
      ]);
      const list = n.Drivers || {};
      rows(byID('drivers'), Object.keys(list).filter((d) => d !== testDriver).sort().map((d) => el('tr', {},
        el('td', {}, d),
        el('td', {}, list[d].Detected ? 'yes' : 'no'),
        el('td', {}, list[d].Healthy ? badge('healthy') : badge('unhealthy')),
        el('td', {}, list[d].HealthDescription || ''))), 'No drivers.');
      rows(byID('allocations'), [...allocs.body].sort(byNewest).map((a) => allocRow(a, true)), 'No allocations on this client.');
      return Math.max(node.index, allocs.index);
    },
  };

  pages.evaluations = {
    topics: ['Evaluation'],
    namespace: '*',
    async load() {
      const evals = await get('/v1/evaluations?namespace=*');
      rows(byID('evaluations'), [...evals.body].sort(byNewest).slice(0, 500).map((e) => el('tr', {'data-eval': e.ID},
        el('td', {}, el('span', {class: 'mono', title: e.ID}, shortID(e.ID))),
        el('td', {}, el('a', {href: jobPath(e.JobID, e.Namespace)}, e.JobID)),
        el('td', {}, e.TriggeredBy),
        el('td', {}, badge(e.Status), e.StatusDescription ? el('div', {class: 'empty'}, e.StatusDescription) : null),
        el('td', {}, placementFailures(e.FailedTGAllocs)),
        el('td', {class: 'nowrap'}, ago(e.CreateTime)))), 'No evaluations.');
      return evals.index;
    },
  };

  // placementFailures names, group by group, why allocations were not
  // placed, in the words of the CLI.
  function placementFailures(failed) {
    const groups = Object.keys(failed || {}).sort();
    if (!groups.length) return el('span', {class: 'empty'}, '—');
    return el('ul', {class: 'failures'}, groups.map((g) => {
      const m = failed[g] || {};
      const n = 1 + (m.CoalescedFailures || 0);
      const reasons = [];
      if (!m.NodesEvaluated) reasons.push('no nodes were eligible for evaluation');
      for (const [dc, count] of Object.entries(m.NodesAvailable || {})) if (!count) reasons.push(`no nodes are available in datacenter "${dc}"`);
      for (const [c, count] of Object.entries(m.ClassFiltered || {})) reasons.push(`class "${c}": ${count} excluded by filter`);
      for (const [c, count] of Object.entries(m.ConstraintFiltered || {})) reasons.push(`constraint "${c}": ${count} excluded by filter`);
      if (m.NodesExhausted) reasons.push(`resources exhausted on ${m.NodesExhausted} node${m.NodesExhausted === 1 ? '' : 's'}`);
      for (const [d, count] of Object.entries(m.DimensionExhausted || {})) reasons.push(`dimension "${d}" exhausted on ${count}`);
      return el('li', {}, el('strong', {}, g), `: ${n} not placed`, reasons.length ? ` (${reasons.join('; ')})` : '');
    }));
  }

  pages.notfound = {topics: [], async load() { return 0; }};

  // ---- the token page ------------------------------------------------------------

  pages.tokens = {
    topics: [],
    async load() {
      await showToken();
      return 0;
    },
    init() {
      byID('token-form').addEventListener('submit', (event) => {
        event.preventDefault();
        setToken();
      });
      // The form is sent by the script alone: the button only works
      // once the script handles it.
      byID('token-set').disabled = false;
    },
  };

  function tokenMessage(...children) {
    fill(byID('token-message'), children);
  }

  // returnPath is the UI page that sent the user here to set a token
  // (?return=/ui/...), to go back to; only a page of the UI.
  function returnPath() {
    const path = new URLSearchParams(window.location.search).get('return') || '';
    if (!path.startsWith('/ui/') || path.startsWith(TOKENS_PATH) || /[\\\s]/.test(path)) return '';
    return path;
  }

  // whoAmI asks the agent who secret is. It answers the token, or why
  // there is none: acl is 'off' when the agent has no ACLs, 'refused'
  // when it does not know the secret (or it expired).
  async function whoAmI(secret) {
    try {
      return {token: (await get('/v1/acl/token/self', secret)).body};
    } catch (err) {
      if (err.status === 400 && /ACL support disabled/i.test(err.reason)) return {acl: 'off'};
      if (err.status === 403) return {acl: 'refused', reason: err.reason};
      throw err;
    }
  }

  // showToken shows the token this browser sends, and what the agent
  // says of it.
  async function showToken() {
    const details = byID('token-details');
    const secret = tokenSecret();
    const who = await whoAmI(secret);
    if (who.acl === 'off') {
      fill(details, el('p', {}, 'ACLs are disabled on this agent: every request may do everything, and the UI needs no token.'),
        secret ? signOutButton() : null);
      return;
    }
    if (!secret) {
      fill(details, el('p', {}, 'No token is set. The UI asks the agent as an anonymous user, and sees what the agent\u2019s ',
        el('code', {}, 'anonymous'), ' policy allows.'));
      return;
    }
    if (who.acl === 'refused') {
      fill(details, el('p', {class: 'error'}, `The token set in this browser is not valid: ${who.reason}.`), signOutButton());
      return;
    }
    const t = who.token;
    stored.set(TOKEN_NAME_KEY, t.Name || shortID(t.AccessorID));
    showSignedIn();
    const back = returnPath();
    fill(details,
      el('dl', {class: 'facts', 'aria-label': 'Token'},
        el('div', {}, el('dt', {}, 'Name'), el('dd', {id: 'token-name'}, t.Name || '—')),
        el('div', {}, el('dt', {}, 'Type'), el('dd', {id: 'token-type'}, t.Type)),
        el('div', {}, el('dt', {}, 'Accessor ID'), el('dd', {class: 'mono'}, t.AccessorID)),
        el('div', {}, el('dt', {}, 'Created'), el('dd', {}, t.CreateTime ? absolute(Date.parse(t.CreateTime)) : '—')),
        el('div', {}, el('dt', {}, 'Expires'), el('dd', {}, t.ExpirationTime ? absolute(Date.parse(t.ExpirationTime)) : 'never')),
        el('div', {class: 'wide'}, el('dt', {}, 'Policies'), el('dd', {id: 'token-policies'}, await policies(t)))),
      el('p', {class: 'actions'}, signOutButton(), back ? el('a', {href: back}, `Back to ${back}`) : null));
  }

  // policies lists a token's policies, each with its description and
  // rules (a token may read the policies it holds).
  async function policies(t) {
    if (t.Type === 'management') return 'none needed: a management token may do everything';
    const names = t.Policies || [];
    if (!names.length) return el('span', {class: 'empty'}, 'none: this token may do only what needs no token');
    const read = await Promise.all(names.map((name) => get(`/v1/acl/policy/${enc(name)}`).then((r) => r.body, () => null)));
    return el('ul', {class: 'policies'}, names.map((name, i) => {
      const p = read[i];
      if (!p) return el('li', {}, el('span', {class: 'mono'}, name));
      return el('li', {}, el('details', {},
        el('summary', {}, el('span', {class: 'mono'}, name), p.Description ? ` \u2014 ${p.Description}` : null),
        el('pre', {class: 'rules', 'aria-label': `Rules of ${name}`}, p.Rules || '')));
    }));
  }

  function signOutButton() {
    const button = el('button', {type: 'button', id: 'sign-out'}, 'Sign out');
    button.addEventListener('click', signOut);
    return button;
  }

  // setToken checks the secret pasted in the form with the agent and,
  // when the agent knows it, keeps it.
  async function setToken() {
    const input = byID('token-secret');
    const secret = input.value.trim();
    if (!secret) {
      tokenMessage('Paste the secret ID of a token first.');
      input.focus();
      return;
    }
    if (!SECRET_FORM.test(secret)) {
      tokenMessage('A secret ID is printable text without spaces, such as a UUID: this is not one.');
      input.focus();
      return;
    }
    let who;
    try {
      who = await whoAmI(secret);
    } catch (err) {
      tokenMessage(`The agent could not check the token: ${err.message}`);
      return;
    }
    if (who.acl === 'off') {
      tokenMessage('ACLs are disabled on this agent: there is no token to set, and the UI needs none.');
      return;
    }
    if (who.acl === 'refused') {
      tokenMessage(el('span', {class: 'error'}, `The agent refused this token: ${who.reason}. Nothing was kept.`));
      input.select();
      return;
    }
    if (!stored.set(TOKEN_KEY, secret)) {
      tokenMessage(el('span', {class: 'error'}, 'This browser does not let the page keep the token (local storage is disabled).'));
      return;
    }
    input.value = '';
    tokenMessage(`Signed in as ${who.token.Name || shortID(who.token.AccessorID)}.`);
    await showToken();
    byID('token-current').focus();
  }

  function signOut() {
    stored.remove(TOKEN_KEY);
    stored.remove(TOKEN_NAME_KEY);
    showSignedIn();
    tokenMessage('Signed out: this browser no longer keeps or sends a token.');
    refresh(pages.tokens);
    byID('token-secret').focus();
  }

  // showSignedIn names the token in the header, or offers to set one.
  function showSignedIn() {
    const link = byID('token-link');
    const name = tokenSecret() ? stored.get(TOKEN_NAME_KEY) || 'token set' : '';
    link.textContent = name ? `Token: ${name}` : 'ACL token';
    link.title = name ? 'The ACL token this browser sends; change it or sign out' : 'Set an ACL token';
  }

  // ---- permission denied ----------------------------------------------------------
  // A 403 means the agent will not show this page to this token (or to
  // an anonymous user): the page says so, and where to set a token,
  // instead of a broken page; it tries again when the token changes.

  let denied = false;

  function showDenied(err) {
    denied = Boolean(err);
    byID('denied').hidden = !denied;
    byID('content').hidden = denied;
    if (!denied) return;
    const here = window.location.pathname + window.location.search;
    byID('denied-link').href = `${TOKENS_PATH}?return=${enc(here)}`;
    let why = 'No ACL token is set, and the agent\u2019s anonymous policy does not allow this page.';
    if (tokenSecret()) {
      why = /token (not found|expired)/i.test(err.reason)
        ? 'The ACL token set in this browser is no longer valid.'
        : 'The ACL token set in this browser does not allow this page.';
    }
    fill(byID('denied-why'), why);
    fill(byID('denied-reason'), `The agent said: ${err.reason}`);
    setIndicator('denied', err.reason);
  }

  // ---- live updates ----------------------------------------------------------------

  function setIndicator(state, title) {
    const node = byID('live');
    node.className = `live ${state}`;
    node.textContent = {on: 'live', paused: 'paused', denied: 'not live'}[state] || 'reconnecting';
    if (title) node.title = title;
  }

  // follow streams the page's topics from index, reloading the page (at
  // most every 100 ms) when a relevant event arrives; when the stream
  // breaks or the server ends it, it reloads the page and starts again.
  // Only a visible page streams: a browser allows a handful of
  // connections to one host, and every stream holds one, so a hidden tab
  // lets go of its stream and catches up when it is shown again. A page
  // the agent denies does not stream.
  let stream = null; // the AbortController of the running stream

  function follow(page, index) {
    if (stream || denied || document.visibilityState === 'hidden') return;
    const ctl = new AbortController();
    stream = ctl;
    const params = new URLSearchParams();
    for (const t of page.topics) params.append('topic', t);
    params.set('namespace', page.namespace || 'default');
    if (index) params.set('index', String(index));
    let pending = null;
    const schedule = () => {
      if (!pending) pending = setTimeout(() => { pending = null; refresh(page); }, 100);
    };
    const path = `/v1/event/stream?${params}`;
    apiFetch(path, {signal: ctl.signal}).then(async (resp) => {
      if (!resp.ok) throw new APIError(path, resp.status, (await resp.text()).trim());
      setIndicator('on', 'Updates from the event stream');
      const reader = resp.body.getReader();
      const decoder = new TextDecoder();
      let buf = '';
      for (;;) {
        const {value, done} = await reader.read();
        if (done) throw new Error('event stream closed');
        buf += decoder.decode(value, {stream: true});
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (!line) continue;
          const frame = JSON.parse(line);
          if (frame.Error) throw new Error(frame.Error);
          const events = frame.Events || [];
          if (events.some(page.relevant || (() => true))) schedule();
        }
      }
    }).catch((err) => {
      if (stream === ctl) stream = null;
      if (ctl.signal.aborted) return;
      if (err.status === 403) {
        showDenied(err);
        return;
      }
      setIndicator('off', err.message);
      setTimeout(async () => follow(page, await refresh(page)), RETRY_MS);
    });
  }

  function unfollow() {
    if (!stream) return;
    stream.abort();
    stream = null;
    setIndicator('paused', 'The page is hidden; it catches up when shown');
  }

  let loading = null;
  let again = false;

  // refresh loads the page, one load at a time, and returns its index; a
  // refresh asked for while a load runs makes it load once more after.
  function refresh(page) {
    if (loading) {
      again = true;
      return loading;
    }
    loading = (async () => {
      let index = 0;
      do {
        again = false;
        try {
          index = await page.load();
          showDenied(null);
          showError('');
          tick();
        } catch (err) {
          if (err.status === 403) {
            // Asking again changes nothing until the token does.
            showDenied(err);
            continue;
          }
          showError(err.status === 404 ? `Not found: ${err.message}` : err.message);
          // The agent may be restarting: try again, but not for what
          // is not there.
          if (err.status !== 404) setTimeout(() => refresh(page), RETRY_MS);
        }
      } while (again);
      return index;
    })().finally(() => { loading = null; });
    return loading;
  }

  async function start() {
    const page = pages[pageName];
    if (!page) return;
    showSignedIn();
    // A token set or cleared in another tab applies here too: the page
    // starts again with it.
    window.addEventListener('storage', (event) => {
      if (event.key === TOKEN_KEY || event.key === null) window.location.reload();
    });
    if (page.init) page.init();
    setInterval(tick, TICK_MS);
    const index = await refresh(page);
    if (!page.topics.length) {
      // Nothing on this page is live.
      byID('live').hidden = true;
      return;
    }
    follow(page, index);
    document.addEventListener('visibilitychange', async () => {
      if (document.visibilityState === 'hidden') unfollow();
      else follow(page, await refresh(page));
    });
    // Leaving the page ends its stream at once, so that the next page
    // has the connection.
    window.addEventListener('pagehide', unfollow);
  }

  start();
})();
