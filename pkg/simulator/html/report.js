// Draws the report from its JSON model (<script id="ksched-report">), which
// ksched writes from the same simulation result as its table and JSON
// outputs. Plain DOM, no libraries: the file works offline and anywhere.
'use strict';

// A script error leaves a visible note (and one tests look for) rather
// than a half-drawn page.
window.addEventListener('error', (e) => {
  const box = document.getElementById('render-error');
  box.hidden = false;
  box.textContent = 'The report could not be drawn: ' + e.message;
  document.body.setAttribute('data-render-error', e.message);
});

(function () {
  const model = JSON.parse(document.getElementById('ksched-report').textContent);
  const $ = (id) => document.getElementById(id);

  // ---- small helpers ----

  // el('td', {class: 'num', title: 't'}, 'text', child, ...)
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v === undefined || v === null || v === false) continue;
        if (k === 'style') e.style.cssText = v;
        else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, v === true ? '' : v);
      }
    }
    for (const c of children) {
      if (c === undefined || c === null || c === false) continue;
      e.append(c instanceof Node ? c : String(c));
    }
    return e;
  }
  const plural = (n, one, many) => n + ' ' + (n === 1 ? one : (many || one + 's'));
  // Percent full, truncated as the table output truncates it.
  const pct = (part, whole) => whole > 0 ? Math.floor(100 * part / whole) : 0;

  // Amounts as the table output writes them: cores with up to three
  // decimals ("7.91"), byte counts in their exact canonical form ("22Gi",
  // "8896Mi"), counts as they are.
  function amount(v, unit) {
    if (unit === 'milli') {
      const whole = Math.trunc(v / 1000);
      const frac = Math.abs(v % 1000);
      return (v < 0 && whole === 0 ? '-' : '') + whole +
        (frac ? '.' + String(1000 + frac).slice(1).replace(/0+$/, '') : '');
    }
    if (unit === 'bytes' && v !== 0) {
      for (const [suffix, base] of [['Ei', 2 ** 60], ['Pi', 2 ** 50], ['Ti', 2 ** 40],
        ['Gi', 2 ** 30], ['Mi', 2 ** 20], ['Ki', 1024], ['E', 1e18], ['P', 1e15],
        ['T', 1e12], ['G', 1e9], ['M', 1e6], ['k', 1e3]]) {
        if (Math.abs(v) >= base && v % base === 0) return (v / base) + suffix;
      }
    }
    return String(v);
  }
  // Sums over many nodes, rounded for reading: "1.9k" cores, "12.5Ti".
  function approx(v, unit) {
    const round = (x) => x >= 100 ? String(Math.round(x)) : String(Math.round(x * 10) / 10);
    if (unit === 'milli') v /= 1000;
    if (unit === 'bytes') {
      const units = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
      let i = 0;
      while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
      return round(v) + units[i];
    }
    if (Math.abs(v) >= 1e4) return round(v / 1000) + 'k';
    return round(v);
  }

  // Green (empty) through yellow to red (full); purple above 100%.
  function fullColour(f) {
    if (!(f >= 0)) return '#cbd5e0';
    if (f > 1) return '#6b46c1';
    return 'hsl(' + Math.round(120 * (1 - f)) + ', 62%, ' + Math.round(46 + 8 * (1 - f)) + '%)';
  }
  const palette = ['#3182ce', '#dd6b20', '#38a169', '#d53f8c', '#805ad5',
    '#d69e2e', '#319795', '#e53e3e', '#718096', '#2c5282', '#9c4221', '#276749'];
  const colourOf = (i) => palette[i % palette.length];
  const pluginColours = new Map();
  function pluginColour(name) {
    if (!pluginColours.has(name)) pluginColours.set(name, colourOf(pluginColours.size));
    return pluginColours.get(name);
  }

  const resources = model.resources;
  const nodes = model.nodes;
  const nodeIndex = new Map(nodes.map((n, i) => [n.n, i]));
  const podKey = (p) => p.ns + '/' + p.n;
  const scheduled = model.pods.filter((p) => p.node !== null);
  const unschedulable = model.pods.filter((p) => p.node === null);

  // ---- header ----

  $('title').textContent = model.title;
  document.title = model.title + (model.source ? ' — ' + model.source : '');
  $('source').textContent = model.source ? 'Cluster: ' + model.source : '';
  for (const [id, label] of [['summary', 'Summary'], ['cluster', 'Cluster'],
    ['pending', 'Pending'], ['explanations', 'Explanations'],
    ['placements', 'Placements']]) {
    $('toc').append(el('a', {href: '#' + id}, label));
  }

  // ---- summary ----

  function card(id, num, label, tone) {
    return el('div', {id: 'sum-' + id, class: 'card' + (tone ? ' ' + tone : '')},
      el('div', {class: 'num'}, num), el('div', {class: 'label'}, label));
  }
  $('summary-cards').append(
    card('pending', model.pods.length, 'pending pods'),
    card('scheduled', scheduled.length, 'scheduled', 'good'),
    card('unschedulable', unschedulable.length, 'unschedulable',
      unschedulable.length ? 'bad' : ''),
    card('preempted', model.preempted.length, 'preempted'),
    card('nodes', nodes.length, 'nodes'),
    card('cycles', model.cycles, 'scheduling cycles'));

  if (model.profiles.length) {
    const rows = model.profiles.map((name, i) => {
      const mine = model.pods.filter((p) => p.p === i);
      const ok = mine.filter((p) => p.node !== null).length;
      return el('tr', {'data-profile': name}, el('td', null, name),
        el('td', {class: 'num'}, mine.length), el('td', {class: 'num'}, ok),
        el('td', {class: 'num'}, mine.length - ok));
    });
    $('profiles').append(el('h3', null, 'Per profile'), el('table', {id: 'profile-table'},
      el('thead', null, el('tr', null, el('th', null, 'Profile'), el('th', {class: 'num'}, 'Pending'),
        el('th', {class: 'num'}, 'Scheduled'), el('th', {class: 'num'}, 'Unschedulable'))),
      el('tbody', null, ...rows)));
  }
  renderPlan($('plan'));

  function table(id, headers, rows) {
    return el('table', {id},
      el('thead', null, el('tr', null, ...headers.map((h) => el('th', null, h)))),
      el('tbody', null, ...rows));
  }

  function renderPlan(box) {
    if (model.workloads) {
      box.append(el('h3', null, 'Workloads'), table('workload-table',
        ['Workload', 'Kind', 'Scheduled', 'Unschedulable', 'Why'],
        model.workloads.map((w) => el('tr', {'data-workload': w.namespace + '/' + w.name},
          el('td', null, w.namespace + '/' + w.name), el('td', null, w.kind),
          el('td', {class: 'num'}, w.scheduled + '/' + w.desired),
          el('td', {class: 'num'}, w.unschedulable), el('td', null, w.message)))));
    }
    if (model.podGroups) {
      box.append(el('h3', null, 'Gangs (PodGroups)'), table('gang-table',
        ['PodGroup', 'minMember', 'Members', 'Scheduled', 'Most placed at once', 'Why'],
        model.podGroups.map((g) => el('tr', {'data-gang': g.namespace + '/' + g.name},
          el('td', null, g.namespace + '/' + g.name), el('td', {class: 'num'}, g.minMember),
          el('td', {class: 'num'}, g.members), el('td', {class: 'num'}, g.scheduled),
          el('td', {class: 'num'}, g.mostPlaced), el('td', null, g.message || 'scheduled')))));
    }
    if (model.podGroupsIgnored > 0) {
      box.append(el('p', {class: 'muted'}, plural(model.podGroupsIgnored, 'PodGroup') +
        ' ignored: no profile runs Coscheduling, so their pods were scheduled one by one.'));
    }
    if (model.capacity) {
      const c = model.capacity;
      const where = Object.entries(c.nodes).map(([n, k]) => n + ' ' + k).join(', ');
      box.append(el('h3', null, 'Capacity'), el('p', {id: 'capacity'},
        el('b', {id: 'capacity-fits'}, c.fits), ' more pods like ' + c.pod + ' fit' +
        (where ? ': ' + where : '') + '. ',
        c.reachedMax ? 'Stopped at --max.' : (c.stoppedBy ? 'The next one: ' + c.stoppedBy : '')));
    }
    if (model.nodesNeeded !== undefined) {
      // The table's words (report.cc, NodesNeededLines).
      const s = model.nodeSearch || {found: true, cannotTake: [], notWithin: [], tried: [], runs: 0};
      const n = model.nodesNeeded;
      const like = ' more ' + (n === 1 ? 'node' : 'nodes') + ' like ' + model.nodeTemplate;
      const some = s.cannotTake.length > 0;
      let answer;
      if (!s.found) {
        answer = el('span', null, 'Even ', el('b', null, n), like + (s.stoppedAtMax ? ' (--max)' : ' (one a pending pod)') +
          ' leave ' + plural(s.notWithin.length, 'pod') + ' such nodes take alone pending: ' + s.notWithin.join(', '));
      } else if (n === 0) {
        answer = some ? 'None: every pending pod such nodes can take fits already.' : 'None: every pending pod fits already.';
      } else {
        answer = el('span', null, el('b', null, n), like + (some ? (n === 1 ? ' fits' : ' fit') + ' every pending pod such nodes can take.'
          : (n === 1 ? ' makes' : ' make') + ' every pending pod fit.'));
      }
      box.append(el('h3', null, 'Nodes needed'), el('p', {id: 'nodes-needed'}, answer));
      if (some) {
        const byReason = new Map();
        for (const c of s.cannotTake) {
          if (!byReason.has(c.reason)) byReason.set(c.reason, []);
          byReason.get(c.reason).push(c.pod);
        }
        box.append(el('p', null, 'No node like ' + model.nodeTemplate + ' can take ' + plural(s.cannotTake.length, 'pod') + ':'),
          el('ul', {id: 'cannot-take'}, ...[...byReason].map(([why, pods]) => el('li', null, pods.join(', ') + ': ' + why))));
      }
      if (s.runs) {
        box.append(el('p', {id: 'nodes-needed-search'}, 'Searched in ' + plural(s.runs, 'run') + ' (' + s.tried.join(', ') +
          ' more nodes' + (some ? ', and one trying each pod alone' : '') + '), ' + s.seconds.toFixed(2) + ' s.'));
      }
    }
    if (model.displaced) {
      // The table output's words for each fate.
      const fate = (d) => {
        if (d.fate === 'staysDaemonSet') return 'stays, DaemonSet-managed (drain ignores DaemonSets)';
        if (d.fate === 'staysMirror') return "stays, a static pod's mirror (drain skips it)";
        if (d.fate === 'deleted') return 'deleted (--force), no controller re-creates it';
        if (d.recreated === null) return 'gone with the node, no controller re-creates it';
        if (d.newNode) return 're-created as ' + d.recreated + ' on ' + d.newNode;
        return 're-created as ' + d.recreated + ', unschedulable: ' + d.message;
      };
      box.append(el('h3', null, 'Changes'));
      if (model.addedNodes && model.addedNodes.length) {
        box.append(el('p', {id: 'added-nodes'}, 'Added nodes: ' + model.addedNodes.join(', ')));
      }
      if (model.displaced.length) {
        box.append(table('displaced-table', ['Pod', 'Was on', 'Fate'],
          model.displaced.map((d) => el('tr', {'data-pod': d.pod, 'data-new-node': d.newNode || ''},
            el('td', null, d.pod), el('td', null, d.node), el('td', null, fate(d))))));
      }
    }
    if (model.preempted.length) {
      box.append(el('h3', null, 'Preempted'), table('preempted-table', ['Pod', 'Node', 'For'],
        model.preempted.map((p) => el('tr', {'data-pod': p.namespace + '/' + p.name},
          el('td', null, p.namespace + '/' + p.name), el('td', null, p.node),
          el('td', null, p.preemptedBy)))));
    }
    if (model.otherSchedulerPods.length) {
      box.append(el('p', {class: 'muted', id: 'other-schedulers'},
        'Left to other schedulers: ' + model.otherSchedulerPods.join(', ')));
    }
    for (const w of model.warnings) box.append(el('p', {class: 'error'}, 'warning: ' + w));
  }

  // ---- pending pods by reason ----

  (function renderReasons() {
    const total = unschedulable.length;
    if (!total) {
      $('reason-legend').append(el('li', null, 'Every pending pod was scheduled.'));
      $('reason-bar').hidden = true;
      return;
    }
    const byReason = model.pendingReasons.map(() => []);
    for (const p of unschedulable) byReason[p.why].push(p);
    model.pendingReasons.forEach((r, i) => {
      const label = r.pods + ' ' + (r.reason || '(no message)');
      $('reason-bar').append(el('span', {style: 'width:' + (100 * r.pods / total) +
        '%;background:' + colourOf(i), title: label}));
      $('reason-legend').append(el('li', {'data-reason': r.reason},
        el('span', {class: 'swatch', style: 'background:' + colourOf(i)}),
        el('span', {class: 'count'}, r.pods), r.reason || '(no message)'));
      const pods = byReason[i];
      const shown = pods.slice(0, 200);
      const list = el('ul', null, ...shown.map((p) => el('li', {'data-pod': podKey(p)},
        el('b', null, podKey(p)), ': ' + model.messages[p.m])));
      if (pods.length > shown.length) list.append(el('li', {class: 'muted'}, 'and ' + (pods.length - shown.length) + ' more'));
      $('reason-groups').append(el('details', {open: i === 0 && pods.length <= 50},
        el('summary', null, plural(r.pods, 'pod') + ': ' + (r.reason || '(no message)')), list));
    });
  })();

  // ---- the cluster ----

  const state = {group: model.labelKeys.length ? 0 : -1, res: 0, when: 'after', expanded: new Set()};
  // Groups with more nodes than this show how full their nodes are as a
  // histogram; a click shows them one by one.
  const TILE_LIMIT = 300;
  // Clusters up to this size show every node as a card with its figures.
  const CARD_LIMIT = 60;

  $('group-by').append(el('option', {value: -1}, '(no grouping)'),
    ...model.labelKeys.map((k, i) => el('option', {value: i}, k)));
  $('group-by').value = state.group;
  resources.forEach((r, i) => $('resource').append(el('option', {value: i}, r.name)));
  const deviceDrivers = [...new Set(nodes.flatMap((n) => (n.d || []).map((d) => d[0])))].sort();
  deviceDrivers.forEach((d, i) => $('resource').append(el('option', {value: resources.length + i}, 'devices ' + d)));
  $('group-by').addEventListener('change', (e) => { state.group = +e.target.value; state.expanded.clear(); drawCluster(); });
  $('resource').addEventListener('change', (e) => { state.res = +e.target.value; drawCluster(); });
  for (const r of document.querySelectorAll('input[name=when]')) {
    r.addEventListener('change', (e) => { state.when = e.target.value; drawCluster(); });
  }

  // [requested, allocatable] of the chosen resource on node n; devices have
  // no "before" (ResourceSlices count allocations at the end).
  function usage(n, res, when) {
    if (res < resources.length) return [(when === 'before' ? n.b : n.r)[res], n.a[res]];
    const d = (n.d || []).find((x) => x[0] === deviceDrivers[res - resources.length]);
    return d ? [when === 'before' ? NaN : d[1], d[2]] : [0, 0];
  }
  function resName(res) { return res < resources.length ? resources[res].name : 'devices ' + deviceDrivers[res - resources.length]; }
  function resUnit(res) { return res < resources.length ? resources[res].unit : 'count'; }

  function nodeTitle(n) {
    const lines = [n.n];
    resources.forEach((r, i) => {
      if (!n.a[i] && !n.r[i]) return;
      lines.push(r.name + ' ' + amount(n.r[i], r.unit) + '/' + amount(n.a[i], r.unit) +
        ' (' + pct(n.r[i], n.a[i]) + '%), before ' + amount(n.b[i], r.unit));
    });
    for (const d of n.d || []) lines.push(d[0] + ' ' + d[1] + '/' + d[2] + ' devices');
    if (n.c) lines.push('cordoned');
    for (const t of n.t || []) lines.push('taint ' + t);
    return lines.join('\n');
  }

  function groupsOf() {
    const groups = new Map();
    nodes.forEach((n, i) => {
      const v = state.group < 0 ? 'all nodes'
        : n.l[state.group] < 0 ? '(no ' + model.labelKeys[state.group] + ')'
        : model.labelValues[state.group][n.l[state.group]];
      if (!groups.has(v)) groups.set(v, []);
      groups.get(v).push(i);
    });
    return [...groups.entries()].sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  }

  function meter(f) {
    return el('span', {class: 'meter'}, el('span', {style: 'width:' + Math.min(100, 100 * f) + '%;background:' + fullColour(f)}));
  }

  function sumLine(members, res, when) {
    let used = 0, cap = 0;
    for (const i of members) {
      const [u, a] = usage(nodes[i], res, when);
      used += u; cap += a;
    }
    const unit = resUnit(res);
    return {used, cap, text: resName(res) + ' ' + (isNaN(used) ? 'n/a' : approx(used, unit)) + '/' + approx(cap, unit) +
      (isNaN(used) ? '' : ' (' + pct(used, cap) + '%)')};
  }

  function drawCluster() {
    const box = $('groups');
    box.textContent = '';
    const all = nodes.map((_, i) => i);
    const total = sumLine(all, state.res, state.when);
    $('cluster-total').textContent = '';
    $('cluster-total').append(el('p', {id: 'cluster-sum', 'data-used': total.used, 'data-allocatable': total.cap},
      plural(nodes.length, 'node') + ' · ' + total.text + ' ' + (state.when === 'before' ? 'before the run' : 'after the run')));
    const grouped = groupsOf();
    if (grouped.length > 1) box.append(groupTable(grouped));
    for (const [value, members] of grouped) {
      const s = sumLine(members, state.res, state.when);
      const head = el('div', {class: 'group-head'}, el('b', null, value), plural(members.length, 'node'),
        el('span', {class: 'group-sum'}, s.text), meter(s.cap > 0 ? s.used / s.cap : 0));
      const g = el('div', {class: 'group', 'data-group': value, 'data-nodes': members.length,
        'data-used': s.used, 'data-allocatable': s.cap}, head);
      if (nodes.length <= CARD_LIMIT) {
        g.append(nodeCards(members));
      } else if (members.length <= TILE_LIMIT || state.expanded.has(value)) {
        g.append(tiles(members));
      } else {
        g.append(histogram(members), el('button', {onclick: () => { state.expanded.add(value); drawCluster(); }},
          'Show the ' + members.length + ' nodes'));
      }
      box.append(g);
    }
  }

  // One bar per resource the node has: the darker part was requested
  // before the run, the lighter part the run added.
  function resourceBar(before, after, cap, unit, label) {
    const f = cap > 0 ? after / cap : (after > 0 ? 2 : 0);
    const b = cap > 0 && !isNaN(before) ? Math.min(before, after) / cap : 0;
    return el('div', {class: 'res', 'data-resource': label},
      el('span', {class: 'res-name'}, label),
      el('span', {class: 'res-bar', title: label + ': ' + (isNaN(before) ? '' : amount(before, unit) + ' before, ') +
        amount(after, unit) + ' after, of ' + amount(cap, unit)},
      el('span', {class: 'res-before', style: 'width:' + Math.min(100, 100 * b) + '%'}),
      el('span', {class: 'res-added', style: 'width:' + Math.max(0, Math.min(100, 100 * f) - Math.min(100, 100 * b)) + '%;background:' + fullColour(f)})),
      el('span', {class: 'res-text'}, amount(after, unit) + '/' + amount(cap, unit) + ' ' + pct(after, cap) + '%'));
  }

  function nodeCards(members) {
    const box = el('div', {class: 'node-cards'});
    for (const i of members) {
      const n = nodes[i];
      const bars = [];
      resources.forEach((r, j) => {
        if (j > 2 && !n.a[j] && !n.r[j]) return;
        if (r.name === 'ephemeral-storage' && !n.r[j]) return;
        bars.push(resourceBar(n.b[j], n.r[j], n.a[j], r.unit, r.name));
      });
      for (const d of n.d || []) bars.push(resourceBar(NaN, d[1], d[2], 'count', d[0]));
      box.append(el('div', {class: 'node-card' + (n.c ? ' cordoned' : ''), 'data-node': n.n, onclick: () => showNode(n.n),
        style: 'border-left-color:' + fullColour(fraction(n))},
        el('div', {class: 'node-name'}, n.n, n.c ? el('span', {class: 'tag'}, 'cordoned') : null,
          (n.t || []).length ? el('span', {class: 'tag', title: n.t.join('\n')}, plural(n.t.length, 'taint')) : null),
        ...bars));
    }
    return box;
  }

  // Every group on one line per resource: which zones are full, at a
  // glance, whatever the colouring chosen.
  function groupTable(grouped) {
    const shown = [];
    resources.forEach((r, i) => {
      // Extended resources (GPUs) always; storage only when requested.
      if (i < 3 || resources[i].unit === 'count' || nodes.some((n) => n.r[i] > 0 || n.b[i] > 0)) shown.push(i);
    });
    deviceDrivers.forEach((_, i) => shown.push(resources.length + i));
    return el('table', {class: 'group-table'},
      el('thead', null, el('tr', null, el('th', null, model.labelKeys[state.group] || 'group'), el('th', {class: 'num'}, 'Nodes'),
        ...shown.map((res) => el('th', null, resName(res))))),
      el('tbody', null, ...grouped.map(([value, members]) => el('tr', {'data-group-row': value},
        el('td', null, value), el('td', {class: 'num'}, members.length),
        ...shown.map((res) => {
          const s = sumLine(members, res, state.when);
          const f = s.cap > 0 ? s.used / s.cap : 0;
          return el('td', {class: 'nowrap', title: s.text}, meter(f), ' ' + (isNaN(s.used) ? 'n/a' : pct(s.used, s.cap) + '%'));
        })))));
  }

  function fraction(n) {
    const [u, a] = usage(n, state.res, state.when);
    return a > 0 ? u / a : (u > 0 ? 2 : NaN);
  }

  function tiles(members) {
    const t = el('div', {class: 'tiles'});
    for (const i of members) {
      const n = nodes[i];
      t.append(el('div', {class: 'tile' + (n.c ? ' cordoned' : ''), 'data-node': n.n,
        style: 'background-color:' + fullColour(fraction(n)), title: nodeTitle(n),
        onclick: () => showNode(n.n)}));
    }
    return t;
  }

  // Nodes counted by how full they are: 0-10%, ..., 90-100%, over.
  function histogram(members) {
    const buckets = new Array(11).fill(0);
    for (const i of members) {
      const f = fraction(nodes[i]);
      buckets[isNaN(f) ? 0 : f > 1 ? 10 : Math.min(9, Math.floor(f * 10))]++;
    }
    const most = Math.max(...buckets, 1);
    return el('div', {class: 'hist', title: 'nodes by how full they are: 0-10% on the left, over 100% on the right'}, ...buckets.map((c, b) => el('div',
      {title: c + ' nodes ' + (b === 10 ? 'over 100%' : (b * 10) + '-' + (b * 10 + 10) + '% full'), 'data-bucket': b, 'data-count': c},
      c ? String(c) : '', el('span', {style: 'height:' + (55 * c / most) + 'px;background:' + fullColour(b === 10 ? 1.5 : b / 10 + 0.05)}),
      el('i', null, b === 10 ? '>100%' : b * 10 + '%'))));
  }

  (function scale() {
    const s = $('scale');
    s.append('empty');
    for (let f = 0; f <= 1.0001; f += 0.1) s.append(el('span', {class: 'cell', style: 'background:' + fullColour(f)}));
    s.append('full', el('span', {class: 'cell', style: 'background:' + fullColour(2)}), 'over');
  })();

  for (const n of nodes) $('node-names').append(el('option', {value: n.n}));
  $('node-search').addEventListener('input', (e) => {
    const q = e.target.value.trim();
    if (nodeIndex.has(q)) { showNode(q); return; }
    const box = $('node-detail');
    box.textContent = '';
    if (!q) return;
    const hits = nodes.filter((n) => n.n.includes(q)).slice(0, 30);
    box.append(el('p', {class: 'muted'}, hits.length ? 'Nodes matching ' + q + ':' : 'No node matches ' + q),
      ...hits.map((n) => el('button', {onclick: () => showNode(n.n)}, n.n)));
  });

  function showNode(name) {
    const n = nodes[nodeIndex.get(name)];
    $('node-search').value = name;
    const rows = resources.map((r, i) => el('tr', {'data-resource': r.name},
      el('td', null, r.name), el('td', {class: 'num'}, amount(n.b[i], r.unit)),
      el('td', {class: 'num'}, amount(n.r[i], r.unit)), el('td', {class: 'num'}, amount(n.a[i], r.unit)),
      el('td', {class: 'num'}, pct(n.r[i], n.a[i]) + '%')));
    for (const d of n.d || []) {
      rows.push(el('tr', {'data-resource': 'devices ' + d[0]}, el('td', null, 'devices ' + d[0]),
        el('td', {class: 'num'}, ''), el('td', {class: 'num'}, d[1]), el('td', {class: 'num'}, d[2]),
        el('td', {class: 'num'}, pct(d[1], d[2]) + '%')));
    }
    const placed = scheduled.filter((p) => p.node === name).map(podKey);
    const evicted = model.preempted.filter((p) => p.node === name).map((p) => p.namespace + '/' + p.name);
    const labels = model.labelKeys.map((k, i) => n.l[i] >= 0 ? k + '=' + model.labelValues[i][n.l[i]] : null).filter(Boolean);
    const box = $('node-detail');
    box.textContent = '';
    box.append(el('div', {class: 'card', 'data-node': name},
      el('h3', null, name, n.c ? el('span', {class: 'tag'}, 'cordoned') : null),
      el('table', null, el('thead', null, el('tr', null, ...['Resource', 'Before', 'After', 'Allocatable', 'Full']
        .map((h, i) => el('th', {class: i ? 'num' : null}, h)))), el('tbody', null, ...rows)),
      labels.length ? el('p', null, 'Labels: ' + labels.join(', ')) : null,
      (n.t || []).length ? el('p', null, 'Taints: ' + n.t.join(', ')) : null,
      el('p', null, 'Placed here by the run: ' + (placed.length ? placed.join(', ') : 'none')),
      evicted.length ? el('p', null, 'Preempted here: ' + evicted.join(', ')) : null));
    for (const t of document.querySelectorAll('.found')) t.classList.remove('found');
    const tile = document.querySelector('.tile[data-node="' + CSS.escape(name) + '"], .node-card[data-node="' + CSS.escape(name) + '"]');
    if (tile) tile.classList.add('found');
  }

  // A link can open the page on a grouping and a node:
  // report.html#group=node.kubernetes.io/instance-type&node=node-17.
  const wanted = new URLSearchParams(location.hash.slice(1));
  if (wanted.has('group')) {
    state.group = model.labelKeys.indexOf(wanted.get('group'));
    $('group-by').value = state.group;
  }
  drawCluster();
  if (nodeIndex.has(wanted.get('node'))) showNode(wanted.get('node'));

  // ---- placements ----

  const POD_ROWS = 500;
  function podResult(p) {
    const r = p.node !== null ? 'Scheduled' : model.messages[p.m];
    return p.nom ? r + ' (nominated node ' + p.nom + ')' : r;
  }
  function drawPods() {
    const q = $('pod-filter').value.trim().toLowerCase();
    const match = q ? model.pods.filter((p) => (podKey(p) + ' ' + (p.node || '') + ' ' + podResult(p)).toLowerCase().includes(q)) : model.pods;
    const body = document.querySelector('#pod-table tbody');
    body.textContent = '';
    for (const p of match.slice(0, POD_ROWS)) {
      body.append(el('tr', {'data-pod': podKey(p), 'data-node': p.node || '-'},
        el('td', null, podKey(p)), el('td', {class: 'nowrap'}, p.node || '-'),
        el('td', {class: p.node ? null : 'fail-text'}, podResult(p))));
    }
    $('pod-more').textContent = match.length > POD_ROWS
      ? 'Showing ' + POD_ROWS + ' of ' + match.length + ' pods; filter to find others.' : '';
  }
  $('pod-filter').addEventListener('input', drawPods);
  drawPods();

  (function devices() {
    // A device and what it is: a partition drawing on a counter set, a
    // share of a device with the capacity it takes, a tolerated taint.
    const deviceText = (d) => {
      const notes = [];
      if (d.adminAccess) notes.push('admin access');
      if (d.counterSets) notes.push('draws on ' + d.counterSets.join(' '));
      if (d.shareID) {
        notes.push(['share'].concat(Object.entries(d.consumedCapacity || {}).map(([k, v]) => k + ' ' + v)).join(' '));
      }
      for (const t of d.taints || []) notes.push('tolerates ' + t);
      return d.driver + '/' + d.pool + '/' + d.device + (notes.length ? ' (' + notes.join(', ') + ')' : '');
    };
    const rows = [];
    for (const p of scheduled) {
      for (const c of p.claims || []) {
        if (!c.devices.length) continue;
        rows.push(el('tr', {'data-pod': podKey(p), 'data-claim': c.claim}, el('td', null, podKey(p)),
          el('td', null, c.claim), el('td', null, p.node),
          el('td', null, c.devices.map(deviceText).join(', '))));
      }
    }
    if (rows.length) $('devices').append(el('h3', null, 'Devices'), table('device-table', ['Pod', 'Claim', 'Node', 'Devices'], rows));
    const u = model.deviceUsage;
    if (!u) return;
    const where = (x) => (x.node || '-');
    if (u.counterSets.length) {
      $('devices').append(el('h3', null, 'Counters left'), table('counter-table', ['Node', 'Pool', 'Counter set', 'Left'],
        u.counterSets.map((c) => el('tr', {'data-counter-set': c.name}, el('td', null, where(c)),
          el('td', null, c.driver + '/' + c.pool), el('td', null, c.name),
          el('td', null, c.counters.map((k) => k.name + ' ' + k.left + ' of ' + k.total).join(', '))))));
    }
    if (u.sharedDevices.length) {
      $('devices').append(el('h3', null, 'Shared devices'), table('shared-device-table', ['Node', 'Device', 'Shares', 'Consumed'],
        u.sharedDevices.map((s) => el('tr', {'data-device': s.device}, el('td', null, where(s)),
          el('td', null, s.driver + '/' + s.pool + '/' + s.device), el('td', null, String(s.shares)),
          el('td', null, s.capacity.map((c) => c.name + ' ' + c.consumed + ' of ' + c.total).join(', '))))));
    }
    if (u.taintedDevices.length) {
      $('devices').append(el('h3', null, 'Tainted devices'), table('tainted-device-table', ['Node', 'Device', 'Taints', 'Held by'],
        u.taintedDevices.map((t) => el('tr', {'data-device': t.device}, el('td', null, where(t)),
          el('td', null, t.driver + '/' + t.pool + '/' + t.device), el('td', null, t.taints.join(', ')),
          el('td', null, t.heldBy || 'free')))));
    }
  })();

  // ---- explanations ----

  const OPEN_EXPLANATIONS = 20;
  function renderExplanation(x, box) {
    const nodesWord = (k) => plural(k, 'node');
    const sum = x.summary;
    box.append(el('p', {class: 'filter-line'}, 'Filter: ' + sum.filteredNodes + ' of ' + x.totalNodes +
      ' nodes evaluated, ' + sum.feasibleNodes + ' feasible' + (sum.scoredNodes ? ', ' + sum.scoredNodes + ' scored' : '')));
    if (!x.attempted && !String(x.message || '').startsWith('not tried')) {
      box.append(el('p', null, 'Never tried: held back before its first scheduling cycle.'));
    }
    if (x.currentNode && sum.fitsCurrentNode !== undefined) {
      box.append(el('p', null, 'Its node ' + x.currentNode + (sum.fitsCurrentNode ? ' would still take it.' : ' would no longer take it.')));
    }
    if (sum.nominatedNodeTried) box.append(el('p', null, 'Its nominated node ' + sum.nominatedNodeTried + ' (from an earlier preemption) was filtered first, alone.'));
    for (const [plugin, outcome] of x.preFilter) box.append(el('p', null, 'PreFilter ' + plugin + ': ' + outcome));

    if (sum.rejections.length) {
      box.append(el('h3', null, 'Rejected by plugin'), table(null, ['Plugin', 'Nodes', 'Reasons'],
        sum.rejections.map((r) => el('tr', {'data-plugin': r.plugin, 'data-nodes': r.nodes},
          el('td', null, r.plugin), el('td', {class: 'num'}, r.nodes),
          el('td', null, Object.entries(r.reasons).map(([why, k]) => why + ' ' + k).join('; '))))));
    }
    if (x.matrix && x.matrix.rows.length) {
      const m = x.matrix;
      const head = el('tr', null, el('th', null, 'Node'), ...m.plugins.map((p) => el('th', {class: 'plugin', title: p}, p)));
      const rows = m.rows.map((row) => {
        const name = row[0];
        return el('tr', {'data-node': name, class: name === x.node ? 'selected' : null},
          el('td', {class: 'nowrap'}, name === x.node ? name + ' ★' : name),
          ...row.slice(1).map((c, j) => c === 0 ? el('td', {class: 'pass', 'data-plugin': m.plugins[j], title: m.plugins[j] + ': passed'}, '✓')
            : c === -1 ? el('td', {class: 'notrun', title: m.plugins[j] + ': not run'}, '·')
            : el('td', {class: 'fail' + (c < -1 ? ' final' : ''), 'data-plugin': m.plugins[j],
              title: m.plugins[j] + ': ' + m.reasons[c < -1 ? -1 - c : c] + (c < -1 ? ' (preemption cannot help)' : '')}, '✗')));
      });
      box.append(el('h3', null, 'Filter matrix'), el('p', {class: 'muted'},
        (m.rows.length < m.total ? 'The ' + m.rows.length + ' of ' + m.total + ' filtered nodes closest to fitting' : 'Every filtered node') +
        '; hover a ✗ for the reason, a shaded ✗ is one preemption cannot help with.'),
      el('table', {class: 'matrix'}, el('thead', null, head), el('tbody', null, ...rows)));
    }
    if (sum.top.length) {
      const max = Math.max(...sum.top.map((n) => n.total), 1);
      box.append(el('h3', null, 'Top ' + sum.top.length + ' of ' + nodesWord(sum.scoredNodes) + ' scored (weighted)'),
        el('table', {class: 'scores'}, el('thead', null, el('tr', null, el('th', null, 'Node'), el('th', null, 'Weighted scores'),
          ...x.scorePlugins.map((p) => el('th', {class: 'plugin', title: p},
            el('span', {class: 'swatch', style: 'background:' + pluginColour(p)}), p)),
          el('th', {class: 'num'}, 'Total'))), el('tbody', null, ...sum.top.map((n) => el('tr',
          {'data-node': n.node, 'data-total': n.total, class: n.selected ? 'selected' : null},
          el('td', {class: 'nowrap'}, n.selected ? n.node + ' ★ chosen' : n.node),
          el('td', null, el('div', {class: 'scorebar', style: 'width:' + (300 * n.total / max) + 'px'},
            ...x.scorePlugins.map((p) => el('span', {style: 'width:' + (n.total > 0 ? 100 * Math.max(0, n.scores[p] || 0) / n.total : 0) +
              '%;background:' + pluginColour(p), title: p + ' ' + (n.scores[p] || 0)})))),
          ...x.scorePlugins.map((p) => el('td', {class: 'num', 'data-plugin': p}, n.scores[p] !== undefined ? n.scores[p] : '')),
          el('td', {class: 'num'}, n.total))))));
    }
    if (x.node === null && sum.closest.length) {
      box.append(el('h3', null, 'Closest: ' + nodesWord(sum.closestTotal) + ' failed one plugin only'),
        el('ul', null, ...sum.closest.map((c) => el('li', {'data-plugin': c.plugin, 'data-nodes': c.nodes},
          nodesWord(c.nodes) + ' only by ' + c.plugin + ': ' + c.reason + ' (' + c.examples.join(', ') +
          (c.nodes > c.examples.length ? ', ...' : '') + ')'))));
    }
    if (x.preemption.length) {
      // Candidates (and the chosen one) by name with their victims, every
      // other answer counted, as the text explanation lists them.
      const named = ([, o]) => o.startsWith('chosen') || o.startsWith('candidate');
      const victims = x.preemption.filter(named);
      const counts = new Map();
      for (const p of x.preemption) if (!named(p)) counts.set(p[1], (counts.get(p[1]) || 0) + 1);
      box.append(el('h3', null, sum.preemptionFromEarlierCycle ? 'Preemption (in the earlier cycle that nominated the node)' : 'Preemption'),
        el('ul', null, ...[...counts.entries()].map(([o, k]) => el('li', null, nodesWord(k) + ': ' + o)),
          ...victims.map(([node, o]) => el('li', {'data-node': node, class: node === (x.nominatedNode || '') ? 'selected' : null},
            node + ': ' + o + (node === x.nominatedNode ? ' (nominated)' : '')))));
    }
  }

  (function explanations() {
    if (!model.explained.length) { $('explain-none').hidden = false; return; }
    const focus = model.focusPod;
    if (focus) $('explanations').parentNode.insertBefore($('explanations'), $('summary'));
    model.explained.forEach((x, i) => {
      const open = focus ? x.pod === focus : i < OPEN_EXPLANATIONS;
      const outcome = x.node !== null
        ? el('span', {class: 'outcome-ok'}, ' scheduled on ' + x.node)
        : el('span', {class: 'outcome-bad'}, ' unschedulable: ' + x.message +
          (x.nominatedNode ? ' (nominated node ' + x.nominatedNode + ')' : ''));
      const d = el('details', {class: 'explain', 'data-pod': x.pod, open},
        el('summary', null, x.pod + ' (profile ' + x.profile + ')', outcome));
      let drawn = false;
      const draw = () => { if (!drawn) { drawn = true; renderExplanation(x, d); } };
      if (open) draw();
      d.addEventListener('toggle', draw);
      $('explain-list').append(d);
    });
  })();

  // Reading a layout property makes the browser lay the page out now, so
  // the time recorded includes style and layout, not only the script.
  void document.body.offsetHeight;
  document.body.setAttribute('data-rendered', 'true');
  document.body.setAttribute('data-render-ms', Math.round(performance.now()));
})();
