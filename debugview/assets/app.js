// robotd debug page: plain JavaScript, no build step. It reads each robot's
// state (GET api/state, or the api/events stream) as documented in package
// debugview, draws the field on a canvas and fills the side panels.
//
// window.robotdDebug says what was drawn, for tests and for the console:
// robotsDrawn (robots whose pose is on the field), gridDrawn and gridCells
// (the ball-search grid), frames, and per robot its endpoint, whether its
// state arrived, its tick and its last error; drawn (each robot drawn: its
// team, player, colour, position and heading in the view's frame, and a
// canvas point inside its disc), teams (their colours and sides),
// ballsDrawn, trueBall, and game (what the game bar shows).
'use strict';
(() => {
  const params = new URLSearchParams(location.search);
  const dbg = window.robotdDebug = {
    frames: 0, robotsDrawn: 0, gridDrawn: false, gridCells: 0, targetsDrawn: 0,
    ballDrawn: false, ballsDrawn: 0, trueBall: null, drawn: [], teams: [], game: null, mode: null, robots: [],
  };
  const palette = ['#58a6ff', '#f778ba', '#ffa657', '#7ee787', '#d2a8ff', '#79c0ff', '#ff7b72', '#e3b341'];
  const $ = (id) => document.getElementById(id);

  // ---------- generic readers: entries are read by name, tolerating absence

  // get returns the first of names that obj has, matching without regard
  // to case and underscores (CellSize, cellSize, cell_size).
  const norm = (k) => k.toLowerCase().replace(/_/g, '');
  function get(obj, ...names) {
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return undefined;
    for (const n of names) {
      if (n in obj) return obj[n];
    }
    const keys = Object.keys(obj);
    for (const n of names) {
      const k = keys.find((k) => norm(k) === norm(n));
      if (k !== undefined) return obj[k];
    }
    return undefined;
  }
  function num(v) {
    if (typeof v === 'number') return v;
    if (typeof v === 'string' && v !== '' && !isNaN(Number(v))) return Number(v);
    return NaN;
  }
  const finite = (...xs) => xs.every((x) => Number.isFinite(x));
  function vec(v) {
    if (Array.isArray(v) && v.length >= 2) {
      const x = num(v[0]), y = num(v[1]);
      return finite(x, y) ? { x, y } : null;
    }
    const x = num(get(v, 'X')), y = num(get(v, 'Y'));
    return finite(x, y) ? { x, y } : null;
  }
  function truthy(v) { return v === true || (typeof v === 'number' && v !== 0); }
  function value(st, key) {
    if (!st || !st.entries) return undefined;
    const e = st.entries[(st.keys && st.keys[key]) || key];
    return e && e.tick !== 0 ? e.value : undefined;
  }
  function matrix(v, n) {
    if (!Array.isArray(v) || v.length < n) return null;
    const m = [];
    for (let i = 0; i < n; i++) {
      if (!Array.isArray(v[i]) || v[i].length < n) return null;
      m.push(v[i].slice(0, n).map(num));
      if (!finite(...m[i])) return null;
    }
    return m;
  }
  function nameOf(v) {
    if (v === undefined || v === null) return '';
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return '#' + v;
    if (Array.isArray(v)) return v.map(nameOf).filter((s) => s).join(' / ');
    const inner = get(v, 'Role', 'Name', 'Current', 'Value', 'Kind');
    return inner === undefined ? JSON.stringify(v) : nameOf(inner);
  }

  // pathOf reads behaviour.path: strings root first.
  function pathOf(v) {
    if (v === undefined || v === null) return [];
    if (typeof v === 'string') return v.split(/\s*(?:\/|>|›|→)\s*/).filter((s) => s);
    if (Array.isArray(v)) {
      const out = [];
      for (const x of v) {
        const s = typeof x === 'string' ? x : nameOf(x);
        if (s === '') break;
        out.push(s);
      }
      return out;
    }
    if (typeof v === 'object') {
      const arr = get(v, 'Nodes', 'Path', 'Names', 'Items', 'Options', 'Stack', 'Active');
      if (arr === undefined) return [nameOf(v)];
      let p = pathOf(arr);
      const n = num(get(v, 'N', 'Len', 'Count', 'Depth'));
      if (Number.isFinite(n)) p = p.slice(0, n);
      return p;
    }
    return [String(v)];
  }

  // searchOf reads behaviour.search: the grid and the targets.
  function searchOf(v, fld) {
    if (!v || typeof v !== 'object') return null;
    const cols = num(get(v, 'Cols', 'Columns', 'NX', 'Width', 'W'));
    const rows = num(get(v, 'Rows', 'NY', 'Height', 'H'));
    let probs = get(v, 'Probabilities', 'Probability', 'Probs', 'Prob', 'P', 'Cells', 'Grid', 'Values', 'Weights');
    if (Array.isArray(probs) && probs.length && Array.isArray(probs[0])) probs = probs.flat();
    let grid = null;
    if (finite(cols, rows) && cols > 0 && rows > 0 && Array.isArray(probs) && probs.length >= cols * rows) {
      let cell = num(get(v, 'CellX', 'CellWidth'));
      if (!(cell > 0)) cell = num(get(v, 'CellSize', 'Cell', 'Resolution', 'Size'));
      if (!(cell > 0)) cell = fld.length / cols;
      // Cells may be oblong: CellY (or CellHeight) along y, else square.
      let cellY = num(get(v, 'CellY', 'CellHeight'));
      if (!(cellY > 0)) cellY = cell;
      let origin = vec(get(v, 'Origin', 'Min', 'Corner'));
      if (!origin) origin = { x: -cols * cell / 2, y: -rows * cellY / 2 };
      const p = probs.slice(0, cols * rows).map(num);
      grid = { cols, rows, cell, origin, p };
      if (cellY !== cell) grid.cellY = cellY;
    }
    const targets = [];
    let list = get(v, 'Targets', 'Target');
    if (list && !Array.isArray(list)) list = [list];
    if (Array.isArray(list)) {
      let n = num(get(v, 'NTargets', 'NumTargets', 'TargetCount', 'N'));
      if (!Number.isFinite(n)) n = list.length;
      for (const t of list.slice(0, n)) {
        const pos = vec(get(t, 'Pos', 'Target', 'Position', 'Point')) || vec(t);
        if (!pos) continue;
        const player = num(get(t, 'Player', 'Robot'));
        targets.push({ player: Number.isFinite(player) ? player : 0, pos });
      }
    }
    return { grid, targets };
  }

  // The readers, for tests and the console.
  dbg.readers = { pathOf, nameOf, searchOf: (v) => searchOf(v, fieldOf()), gridColour,
    endpointsOf: (spec, teams) => endpointsOf(spec, teams), seconds: (v) => seconds(v),
    teamColour: (v) => teamColour(v), stateName: (v) => stateName(v) };

  // ---------- robots and their connections

  class Robot {
    constructor(endpoint, i) {
      this.endpoint = endpoint;
      // own is the robot's colour among robots of one team; color the one
      // it is drawn in (its team's, when the page shows several teams).
      this.own = palette[i % palette.length];
      this.color = this.own;
      // flip: the robot's team frame is the view's turned by 180°.
      this.flip = false;
      this.arrived = 0;
      this.base = endpoint === 'self' ? new URL('.', location.href).href : `${location.protocol}//${endpoint}/`;
      this.state = null;
      this.hist = [];
      this.err = '';
      this.es = null;
      this.lastVision = null;
      this.pending = false;
      this.want = null;
      this.info = { endpoint, ok: false, tick: 0, error: '' };
      this.closed = false;
    }
    url(path) { return new URL(path, this.base).href; }
    label() {
      const r = this.state && this.state.robot;
      if (!r) return this.endpoint;
      return `${r.team_name || 'team ' + r.team} #${r.player}`;
    }
    async fetchState(tick) {
      const q = tick === undefined || tick === null ? '' : `?tick=${tick}`;
      const ctl = new AbortController();
      const timer = setTimeout(() => ctl.abort(), 5000);
      try {
        const resp = await fetch(this.url('api/state' + q), { signal: ctl.signal, cache: 'no-store' });
        if (!resp.ok) throw new Error(`${resp.status} ${await resp.text()}`);
        this.accept(await resp.json());
      } catch (e) {
        this.fail(e);
      } finally {
        clearTimeout(timer);
      }
    }
    // stream follows a live robot's events; falls back to polling.
    stream() {
      if (!window.EventSource) {
        const poll = async () => {
          if (this.closed) return;
          await this.fetchState();
          setTimeout(poll, 100);
        };
        poll();
        return;
      }
      this.es = new EventSource(this.url('api/events?hz=10'));
      this.es.onmessage = (ev) => {
        try { this.accept(JSON.parse(ev.data)); } catch (e) { this.fail(e); }
      };
      this.es.onerror = () => { this.fail(new Error('event stream interrupted; reconnecting')); };
    }
    // seek asks a replayed robot for a tick, one request at a time.
    seek(tick) {
      this.want = tick;
      if (this.pending) return;
      this.pending = true;
      const t = this.want;
      this.fetchState(t).finally(() => {
        this.pending = false;
        if (this.want !== t) this.seek(this.want);
      });
    }
    accept(st) {
      if (this.closed) return;
      this.state = st;
      this.arrived = performance.now();
      this.err = '';
      Object.assign(this.info, { ok: true, tick: st.tick, error: '', mode: st.mode, player: st.robot && st.robot.player });
      if (st.timings) {
        const now = performance.now();
        const prev = this.hist.length ? this.hist[this.hist.length - 1].timings : null;
        if (prev && st.timings.tick.count < prev.tick.count) this.hist = []; // the robot restarted
        this.hist.push({ t: now, timings: st.timings });
        while (this.hist.length > 2 && now - this.hist[1].t > 2000) this.hist.shift();
      }
      const vis = value(st, 'vision');
      if (vis && truthy(get(vis, 'Fresh'))) this.lastVision = { obs: vis, time: st.time_ns };
      changed();
    }
    fail(e) {
      this.err = String(e && e.message ? e.message : e);
      this.info.error = this.err;
      changed();
    }
    close() {
      this.closed = true;
      if (this.es) this.es.close();
    }
  }

  let robots = [];
  let selected = 0;
  let notice = ''; // a problem with the page's parameters, for the status line

  // endpointsOf reads a list of robots: items separated by commas, each
  // "self", HOST:PORT, HOST:PORT-PORT (a range of ports, at most 32) or,
  // where teams may be given (?game=), a team number 0..99 (its players'
  // default ports on the page's host, probed). Unreadable items are
  // returned in bad.
  function endpointsOf(spec, allowTeams) {
    const out = { endpoints: [], teams: [], bad: [] };
    for (const item of (spec || '').split(',').map((s) => s.trim()).filter((s) => s)) {
      if (allowTeams && /^\d{1,2}$/.test(item)) { out.teams.push(Number(item)); continue; }
      const m = /^(.*):(\d+)-(\d+)$/.exec(item);
      if (m) {
        const a = Number(m[2]), b = Number(m[3]);
        if (m[1] === '' || b < a || b - a >= 32 || b > 65535) { out.bad.push(item); continue; }
        for (let p = a; p <= b; p++) out.endpoints.push(`${m[1]}:${p}`);
        continue;
      }
      out.endpoints.push(item);
    }
    return out;
  }

  function endpointsFromParams() {
    const list = endpointsOf(params.get('robots'), false).endpoints;
    return list.length ? list : ['self'];
  }

  // discover probes the default ports of teams' players 1..7 on the
  // page's host; the page's own port only if withOwn.
  async function discover(teams, withOwn) {
    const found = [];
    const own = location.port;
    const probes = [];
    for (const team of teams) {
      for (let p = 1; p <= 7; p++) {
        const port = 10000 + 100 * team + p;
        if (String(port) === own && !withOwn) continue;
        const ep = `${location.hostname}:${port}`;
        probes.push((async () => {
          const ctl = new AbortController();
          const timer = setTimeout(() => ctl.abort(), 1500);
          try {
            const r = await fetch(`${location.protocol}//${ep}/api/state`, { signal: ctl.signal });
            if (r.ok) found.push([team * 100 + p, ep]);
          } catch (e) { /* nothing there */ } finally { clearTimeout(timer); }
        })());
      }
    }
    await Promise.all(probes);
    return found.sort((a, b) => a[0] - b[0]).map((x) => x[1]);
  }

  function setRobots(endpoints) {
    for (const r of robots) r.close();
    robots = endpoints.map((ep, i) => new Robot(ep, i));
    dbg.robots = robots.map((r) => r.info);
    selected = 0;
    $('robots-input').value = endpoints.join(', ');
    for (const r of robots) start(r);
    buildTabs();
  }

  async function start(r) {
    await r.fetchState(replayTick());
    if (r.closed) return;
    if (!r.state) {
      setTimeout(() => start(r), 2000);
      return;
    }
    if (r.state.mode === 'live') r.stream();
    else setupReplay();
  }

  // ---------- replay controls

  const replay = { on: false, playing: false, tick: null, first: 0, last: 0, stride: 1, last_t: 0, acc: 0, period: 0.01 };

  function replayTick() {
    const t = params.get('tick');
    return replay.on ? replay.tick : (t !== null && t !== '' ? Number(t) : undefined);
  }

  function setupReplay() {
    const rs = robots.filter((r) => r.state && r.state.mode === 'replay');
    if (!rs.length) return;
    replay.first = Math.min(...rs.map((r) => r.state.replay.first));
    replay.last = Math.max(...rs.map((r) => r.state.replay.last));
    replay.stride = Math.min(...rs.map((r) => r.state.replay.stride));
    const rp = rs[0].state.replay;
    if (rp.last > rp.first && rp.duration_ns > 0) replay.period = rp.duration_ns / 1e9 / (rp.last - rp.first);
    const sl = $('rp-slider');
    sl.min = replay.first; sl.max = replay.last; sl.step = replay.stride;
    if (!replay.on) {
      replay.on = true;
      replay.tick = rs[0].state.tick;
      sl.value = replay.tick;
      $('replay').hidden = false;
    }
  }

  function seekAll(tick) {
    tick = Math.max(replay.first, Math.min(replay.last, Math.round(tick)));
    replay.tick = tick;
    $('rp-slider').value = tick;
    for (const r of robots) if (r.state && r.state.mode === 'replay') r.seek(tick);
    const u = new URL(location.href);
    u.searchParams.set('tick', tick);
    history.replaceState(null, '', u);
  }

  function playLoop(now) {
    if (!replay.playing) return;
    const dt = replay.last_t ? (now - replay.last_t) / 1000 : 0;
    replay.last_t = now;
    replay.acc += dt * Number($('rp-speed').value) / replay.period;
    if (replay.acc >= 1) {
      const step = Math.floor(replay.acc);
      replay.acc -= step;
      if (replay.tick + step > replay.last) {
        seekAll(replay.last);
        togglePlay(false);
        return;
      }
      seekAll(replay.tick + step);
    }
    requestAnimationFrame(playLoop);
  }

  function togglePlay(on) {
    replay.playing = on === undefined ? !replay.playing : on;
    $('rp-play').textContent = replay.playing ? '⏸' : '▶';
    if (replay.playing) {
      replay.last_t = 0; replay.acc = 0;
      requestAnimationFrame(playLoop);
    }
  }

  $('rp-slider').addEventListener('input', (e) => { togglePlay(false); seekAll(Number(e.target.value)); });
  $('rp-play').addEventListener('click', () => togglePlay());
  $('rp-start').addEventListener('click', () => { togglePlay(false); seekAll(replay.first); });
  $('rp-back').addEventListener('click', () => { togglePlay(false); seekAll(replay.tick - replay.stride); });
  $('rp-fwd').addEventListener('click', () => { togglePlay(false); seekAll(replay.tick + replay.stride); });

  // ---------- the game: teams, sides, the GameController's state

  // The GameController's team colours (its colour codes 0..9).
  const gcColours = ['#1f6feb', '#e5534b', '#e3b341', '#222222', '#f0f0f0', '#3fb950', '#f0883e', '#a371f7', '#8b5a2b', '#8b949e'];
  const gcColourNames = ['blue', 'red', 'yellow', 'black', 'white', 'green', 'orange', 'purple', 'brown', 'grey'];
  // Teams whose colour no entry tells: by team number, lowest first.
  const teamDefaults = [0, 1, 2, 5, 7, 6];
  const stateNames = ['INITIAL', 'READY', 'SET', 'PLAYING', 'FINISHED', 'STANDBY'];
  const setPlayNames = ['', 'goal kick', 'pushing free kick', 'corner kick', 'kick-in', 'penalty kick', 'direct free kick', 'indirect free kick'];
  const phaseNames = ['', 'penalty shoot-out', 'overtime', 'timeout'];

  // colourCode reads a GameController colour: a code 0..9 or its name.
  function colourCode(v) {
    if (typeof v === 'string') {
      const i = gcColourNames.indexOf(v.toLowerCase().replace('gray', 'grey'));
      return i >= 0 ? i : num(v);
    }
    return num(v);
  }
  // teamColour is the colour a GameControl entry gives its own team (its
  // field players'), or undefined.
  function teamColour(gc) {
    const c = colourCode(get(gc, 'FieldPlayerColour', 'FieldPlayerColor', 'TeamColour', 'TeamColor', 'OwnColour', 'Colour'));
    return Number.isInteger(c) && c >= 0 && c < gcColours.length ? gcColours[c] : undefined;
  }
  function oppColour(gc) {
    const c = colourCode(get(gc, 'OppFieldPlayerColour', 'OppFieldPlayerColor', 'OppColour', 'OppColor', 'OpponentColour'));
    return Number.isInteger(c) && c >= 0 && c < gcColours.length ? gcColours[c] : undefined;
  }
  function stateName(v) {
    if (typeof v === 'string') return /^\d+$/.test(v) ? stateName(Number(v)) : v.toUpperCase();
    return Number.isInteger(v) && v >= 0 && v < stateNames.length ? stateNames[v] : '?';
  }
  // sourceRank orders GameControl sources: the GameController's packets,
  // the simulator's play modes, none.
  function sourceRank(v) {
    if (v === 'gamecontroller' || v === 1) return 2;
    if (v === 'simulator' || v === 2) return 1;
    return 0;
  }
  // seconds reads a duration: a Go duration string ("4m30s") or
  // nanoseconds.
  function seconds(v) {
    if (typeof v === 'number') return v / 1e9;
    if (typeof v !== 'string') return NaN;
    const unit = { h: 3600, m: 60, s: 1, ms: 1e-3, 'µs': 1e-6, 'μs': 1e-6, us: 1e-6, ns: 1e-9 };
    const re = /(\d+(?:\.\d+)?)(h|ms|m|s|µs|μs|us|ns)/g;
    let t = 0, m, n = 0, rest = v.replace(/^[-+]/, '');
    while ((m = re.exec(rest)) !== null) { t += Number(m[1]) * unit[m[2]]; n += m[0].length; }
    if (n !== rest.length || n === 0) return NaN;
    return v.startsWith('-') ? -t : t;
  }
  function clock(s) {
    if (!Number.isFinite(s)) return '–';
    const a = Math.max(0, Math.round(Math.abs(s)));
    return `${s < 0 ? '-' : ''}${Math.floor(a / 60)}:${String(a % 60).padStart(2, '0')}`;
  }
  // teamOf is the robot's team number, -1 if its state does not say.
  function teamOf(r) {
    const n = r.state && r.state.robot ? num(r.state.robot.team) : NaN;
    return Number.isFinite(n) ? n : -1;
  }
  function teamName(r) {
    const rb = r.state && r.state.robot;
    return rb && rb.team_name ? rb.team_name : `team ${teamOf(r)}`;
  }

  // gameOf reads the game from the robots' states: their teams (robot.team
  // of each state, in the order of the list), each team's side and colour,
  // and the newest GameControl entry with the score. It sets each robot's
  // color and flip.
  function gameOf() {
    const teams = [];
    for (const r of robots) {
      if (!r.state) continue;
      const n = teamOf(r);
      let t = teams.find((x) => x.team === n);
      if (!t) {
        t = { team: n, name: teamName(r), robots: [], left: undefined, colour: undefined };
        teams.push(t);
      }
      t.robots.push(r);
      const gs = value(r.state, 'game_state');
      const ls = get(gs, 'LeftSide');
      if (typeof ls === 'boolean' && t.left === undefined) t.left = ls;
      const gc = value(r.state, 'game_control');
      if (gc && !t.colour) t.colour = teamColour(gc);
    }
    // The sides: the first team that says its side (hal.game_state's
    // LeftSide, a simulator's), else the first team listed, is on the side
    // it says (else left); every other team on the other.
    const ref = teams.find((t) => t.left !== undefined) || teams[0];
    const refLeft = ref && ref.left !== undefined ? ref.left : true;
    for (const t of teams) t.isLeft = t === ref ? refLeft : !refLeft;

    // The newest GameControl entry: the GameController's before the
    // simulator's, then the one whose newest packet arrived last.
    let best = null;
    for (const r of robots) {
      const gc = r.state && value(r.state, 'game_control');
      if (!gc) continue;
      const rank = sourceRank(get(gc, 'Source'));
      const last = seconds(get(gc, 'LastPacket'));
      const age = rank === 2 && num(get(gc, 'Packets')) > 0 && Number.isFinite(last) ? r.state.time_ns / 1e9 - last : 0;
      const at = r.arrived - 1000 * Math.max(0, age);
      if (!best || rank > best.rank || (rank === best.rank && at > best.at)) best = { r, gc, rank, at };
    }
    const game = { teams, best, multi: teams.length > 1 };
    if (best) {
      const own = teams.find((t) => t.team === teamOf(best.r));
      let oppNo = num(get(best.gc, 'OppTeam', 'OppTeamNumber', 'OpponentTeam'));
      let opp = Number.isFinite(oppNo) ? teams.find((t) => t.team === oppNo) : teams.length === 2 ? teams.find((t) => t !== own) : undefined;
      if (!opp) {
        opp = { team: oppNo, name: Number.isFinite(oppNo) ? `team ${oppNo}` : 'opponent', robots: [], isLeft: !own.isLeft, virtual: true };
      }
      if (!opp.colour) opp.colour = oppColour(best.gc);
      own.score = num(get(best.gc, 'ScoreOwn'));
      opp.score = num(get(best.gc, 'ScoreOpp'));
      game.own = own; game.opp = opp;
    }
    // Colours: told by an entry, else by team number, lowest first.
    const all = game.opp && game.opp.virtual ? [...teams, game.opp] : teams;
    const taken = new Set(all.map((t) => t.colour).filter((c) => c));
    const free = teamDefaults.map((c) => gcColours[c]).filter((c) => !taken.has(c));
    const order = (t) => (Number.isFinite(t.team) && t.team >= 0 ? t.team : 1e9);
    for (const t of [...all].sort((a, b) => order(a) - order(b))) {
      if (!t.colour) t.colour = free.shift() || '#8b949e';
    }
    for (const t of teams) {
      for (const r of t.robots) {
        r.color = game.multi ? t.colour : r.own;
        r.flip = game.multi && !t.isLeft;
      }
    }
    for (const r of robots) if (!r.state) { r.color = r.own; r.flip = false; }
    return game;
  }

  // updateGame fills the bar above the field: the teams (left first),
  // the score, the game state, set play, half and clocks of the newest
  // GameControl entry.
  function updateGame(game) {
    const bar = $('gamebar');
    const b = game.best;
    if (!b) { bar.hidden = true; dbg.game = null; return; }
    bar.hidden = false;
    const gc = b.gc;
    if (b.rank === 0) {
      // the robots' gamecontroller.state says nothing is known
      setHTML('gb-left', ''); setHTML('gb-right', ''); setText('gb-score', '');
      setText('gb-state', '–');
      setText('gb-info', `no GameController heard (${b.r.label()})`);
      bar.className = '';
      Object.assign(bar.dataset, { state: '', score: '', half: '', stopped: 'false' });
      dbg.game = { state: '', source: 'none', from: b.r.endpoint, teams: [] };
      return;
    }
    // One team is drawn in its own frame: its goal on the left.
    const [L, R] = !game.multi || game.own.isLeft ? [game.own, game.opp] : [game.opp, game.own];
    const state = stateName(get(gc, 'State'));
    const half = truthy(get(gc, 'FirstHalf')) ? 1 : 2;
    const sp = num(get(gc, 'SetPlay'));
    const setPlay = Number.isInteger(sp) && sp > 0 ? setPlayNames[sp] || `set play ${sp}` : '';
    const ph = num(get(gc, 'GamePhase'));
    const phase = Number.isInteger(ph) && ph > 0 ? phaseNames[ph] || `phase ${ph}` : '';
    const stopped = truthy(get(gc, 'Stopped'));
    const remaining = seconds(get(gc, 'Remaining')), secondary = seconds(get(gc, 'Secondary'));
    const kicking = truthy(get(gc, 'OurKickOff')) ? game.own : game.opp;
    const source = b.rank === 2 ? 'GameController' : b.rank === 1 ? 'simulator' : 'no GameController';
    const sc = (t) => (Number.isFinite(t.score) ? String(t.score) : '?');
    const team = (t) => `<span class="sw" style="background:${t.colour}"></span>${esc(t.name)}`;
    setHTML('gb-left', team(L));
    setHTML('gb-right', team(R));
    setText('gb-score', `${sc(L)} : ${sc(R)}`);
    setText('gb-state', state + (stopped ? ' (stopped)' : ''));
    const info = [`half ${half}`, clock(remaining)];
    if (phase) info.push(phase);
    if (setPlay) info.push(`${setPlay} for ${kicking.name}`);
    else if (state === 'READY' || state === 'SET') info.push(`kick-off for ${kicking.name}`);
    if (secondary > 0) info.push(`secondary ${clock(secondary)}`);
    info.push(`from ${b.r.label()} (${source})`);
    setText('gb-info', info.join(' · '));
    bar.className = stopped ? 'stopped' : state.toLowerCase();
    const score = `${sc(L)}:${sc(R)}`;
    Object.assign(bar.dataset, { state, score, half: String(half), stopped: String(stopped) });
    dbg.game = { state, half, score, stopped, setPlay, phase, remaining, secondary, source, from: b.r.endpoint,
      teams: [L, R].map((t) => ({ team: t.team, name: t.name, colour: t.colour, score: t.score, left: t === L, robots: t.robots.length })) };
  }

  // ---------- drawing the field

  const canvas = $('field');
  const ctx = canvas.getContext('2d');
  let view = null;

  function fieldOf() {
    for (const r of robots) if (r.state && r.state.field) return r.state.field;
    return { length: 9, width: 6, goal_width: 1.6, penalty_area_length: 0.6, penalty_area_width: 2.2,
      centre_circle_radius: 0.75, penalty_mark_distance: 1.3, border: 0.7, ball_radius: 0.05 };
  }

  function layout(f) {
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth || 800;
    const totalL = f.length + 2 * f.border, totalW = f.width + 2 * f.border;
    const h = Math.round(w * totalW / totalL);
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
      canvas.style.height = h + 'px';
    }
    const s = w / totalL;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    view = { s, cx: w / 2, cy: h / 2, w, h };
  }
  const px = (x) => view.cx + x * view.s;
  const py = (y) => view.cy - y * view.s;

  function drawField(f, game) {
    ctx.fillStyle = '#1d6b35';
    ctx.fillRect(0, 0, view.w, view.h);
    ctx.strokeStyle = 'rgba(255,255,255,0.85)';
    ctx.lineWidth = Math.max(1, 0.05 * view.s);
    const L = f.length / 2, W = f.width / 2;
    ctx.strokeRect(px(-L), py(W), f.length * view.s, f.width * view.s);
    line(0, W, 0, -W);
    ctx.beginPath(); ctx.arc(px(0), py(0), f.centre_circle_radius * view.s, 0, 2 * Math.PI); ctx.stroke();
    for (const sgn of [-1, 1]) {
      const x0 = sgn * L, x1 = sgn * (L - f.penalty_area_length);
      const y = f.penalty_area_width / 2;
      ctx.strokeRect(px(Math.min(x0, x1)), py(y), f.penalty_area_length * view.s, f.penalty_area_width * view.s);
      spot(sgn * (L - f.penalty_mark_distance), 0);
      // goal: posts and net behind the line
      ctx.save();
      ctx.strokeStyle = sgn > 0 ? '#f0d84a' : '#9ecbff';
      ctx.lineWidth = Math.max(2, 0.1 * view.s);
      const g = f.goal_width / 2, d = Math.min(0.5, f.border * 0.8);
      ctx.beginPath();
      ctx.moveTo(px(sgn * L), py(g)); ctx.lineTo(px(sgn * (L + d)), py(g));
      ctx.lineTo(px(sgn * (L + d)), py(-g)); ctx.lineTo(px(sgn * L), py(-g));
      ctx.stroke();
      ctx.restore();
    }
    spot(0, 0);
    ctx.fillStyle = 'rgba(255,255,255,0.5)';
    ctx.font = '11px system-ui, sans-serif';
    let lt = 'own goal', t = 'opponent goal';
    if (game.multi) {
      const l = game.teams.find((x) => x.isLeft), r = game.teams.find((x) => !x.isLeft);
      lt = l ? `${l.name}'s goal` : ''; t = r ? `${r.name}'s goal` : '';
    }
    ctx.fillText(lt, px(-L) + 4, py(-W) - 4);
    ctx.fillText(t, px(L) - ctx.measureText(t).width - 4, py(-W) - 4);
  }
  function line(x0, y0, x1, y1) { ctx.beginPath(); ctx.moveTo(px(x0), py(y0)); ctx.lineTo(px(x1), py(y1)); ctx.stroke(); }
  function spot(x, y) { ctx.fillStyle = 'white'; ctx.beginPath(); ctx.arc(px(x), py(y), Math.max(2, 0.05 * view.s), 0, 2 * Math.PI); ctx.fill(); }

  // ellipse draws the covariance c (2×2, m²) at (x, y) as its 95% ellipse.
  function ellipse(x, y, c, stroke, fill) {
    const a = c[0][0], b = (c[0][1] + c[1][0]) / 2, d = c[1][1];
    const tr = a + d, det = a * d - b * b;
    const disc = Math.sqrt(Math.max(0, tr * tr / 4 - det));
    const l1 = Math.max(0, tr / 2 + disc), l2 = Math.max(0, tr / 2 - disc);
    const ang = 0.5 * Math.atan2(2 * b, a - d);
    const k = Math.sqrt(5.991); // 95% of a 2-D Gaussian
    const r1 = Math.min(20, k * Math.sqrt(l1)) * view.s, r2 = Math.min(20, k * Math.sqrt(l2)) * view.s;
    if (!finite(r1, r2, ang)) return false;
    ctx.beginPath();
    ctx.ellipse(px(x), py(y), Math.max(r1, 1), Math.max(r2, 1), -ang, 0, 2 * Math.PI);
    // a very uncertain estimate: an outline only, so that it does not hide the field
    const vague = r1 > 1.5 * view.s;
    if (fill && !vague) { ctx.fillStyle = fill; ctx.fill(); }
    ctx.strokeStyle = stroke; ctx.lineWidth = 1;
    if (vague) ctx.setLineDash([2, 6]);
    ctx.stroke();
    ctx.setLineDash([]);
    return !vague;
  }

  function rotateCov(c, h) {
    const cs = Math.cos(h), sn = Math.sin(h);
    const R = [[cs, -sn], [sn, cs]];
    const m = (A, B) => [[A[0][0] * B[0][0] + A[0][1] * B[1][0], A[0][0] * B[0][1] + A[0][1] * B[1][1]],
      [A[1][0] * B[0][0] + A[1][1] * B[1][0], A[1][0] * B[0][1] + A[1][1] * B[1][1]]];
    return m(m(R, c), [[cs, sn], [-sn, cs]]);
  }

  function arrow(x0, y0, x1, y1, color) {
    const X0 = px(x0), Y0 = py(y0), X1 = px(x1), Y1 = py(y1);
    const a = Math.atan2(Y1 - Y0, X1 - X0), hl = 10;
    ctx.strokeStyle = color; ctx.fillStyle = color; ctx.lineWidth = 2;
    ctx.setLineDash([6, 4]);
    ctx.beginPath(); ctx.moveTo(X0, Y0); ctx.lineTo(X1, Y1); ctx.stroke();
    ctx.setLineDash([]);
    ctx.beginPath(); ctx.moveTo(X1, Y1);
    ctx.lineTo(X1 - hl * Math.cos(a - 0.4), Y1 - hl * Math.sin(a - 0.4));
    ctx.lineTo(X1 - hl * Math.cos(a + 0.4), Y1 - hl * Math.sin(a + 0.4));
    ctx.closePath(); ctx.fill();
    ctx.beginPath(); ctx.arc(X1, Y1, 4, 0, 2 * Math.PI); ctx.stroke();
  }

  function poseOf(st) {
    const v = value(st, 'pose');
    if (!v || !truthy(get(v, 'Valid'))) return null;
    const p = get(v, 'Pose');
    const x = num(get(p, 'X')), y = num(get(p, 'Y')), h = num(get(p, 'Heading'));
    if (!finite(x, y, h)) return null;
    return { x, y, h, cov: matrix(get(v, 'Cov'), 3), conf: num(get(v, 'Confidence')) };
  }

  // mirror turns a point of robot r's team frame into the view's.
  function mirror(r, p) { return p && r.flip ? { x: -p.x, y: -p.y } : p; }
  function mirrorPose(r, pose) {
    // a turn by 180° leaves the position covariance as it is
    return pose && r.flip ? Object.assign({}, pose, { x: -pose.x, y: -pose.y, h: pose.h + Math.PI }) : pose;
  }

  // gridColour colours a search-grid cell by its probability relative to
  // a uniform grid's (ratio 1): more likely cells warm and more opaque,
  // less likely ones blue, a uniform grid faint grey. t is log2 of the
  // ratio, clamped to ±3 (8 times more or less likely than uniform).
  function gridColour(p, n) {
    if (!Number.isFinite(p) || p < 0 || !(n > 0)) return 'hsla(0, 0%, 60%, 0.08)';
    const t = Math.max(-3, Math.min(3, Math.log2(Math.max(p * n, 1e-9)))) / 3;
    if (Math.abs(t) < 0.05) return 'hsla(0, 0%, 85%, 0.10)';
    if (t > 0) return `hsla(${Math.round(45 - 45 * t)}, 90%, 55%, ${(0.12 + 0.5 * t).toFixed(3)})`;
    return `hsla(210, 70%, 55%, ${(0.10 + 0.25 * -t).toFixed(3)})`;
  }

  // drawGrid draws a search grid, turned by 180° if flip.
  function drawGrid(g, flip) {
    let sum = 0;
    for (const p of g.p) if (Number.isFinite(p) && p > 0) sum += p;
    const n = g.cols * g.rows;
    for (let r = 0; r < g.rows; r++) {
      for (let c = 0; c < g.cols; c++) {
        const p = g.p[r * g.cols + c];
        ctx.fillStyle = gridColour(sum > 0 ? p / sum : NaN, n);
        const cy = g.cellY || g.cell;
        const x = flip ? -(g.origin.x + (c + 1) * g.cell) : g.origin.x + c * g.cell;
        const y = flip ? -(g.origin.y + r * cy) : g.origin.y + (r + 1) * cy;
        ctx.fillRect(px(x), py(y), g.cell * view.s - 1, cy * view.s - 1);
      }
    }
  }

  function drawRobot(r, pose) {
    const rad = 0.15 * view.s;
    const gc = value(r.state, 'game_control');
    const penalised = truthy(get(gc, 'Penalised'));
    if (pose.cov) {
      ellipse(pose.x, pose.y, [[pose.cov[0][0], pose.cov[0][1]], [pose.cov[1][0], pose.cov[1][1]]], r.color, r.color + '33');
      const sh = Math.sqrt(Math.max(0, pose.cov[2][2]));
      if (Number.isFinite(sh) && sh > 0.005) {
        const span = Math.min(Math.PI, 2 * sh);
        ctx.beginPath();
        ctx.moveTo(px(pose.x), py(pose.y));
        ctx.arc(px(pose.x), py(pose.y), rad * 3, -pose.h - span, -pose.h + span);
        ctx.closePath();
        ctx.fillStyle = r.color + '40'; ctx.fill();
      }
    }
    ctx.beginPath(); ctx.arc(px(pose.x), py(pose.y), rad, 0, 2 * Math.PI);
    ctx.fillStyle = r.color; ctx.fill();
    ctx.strokeStyle = penalised ? '#ff7b72' : '#000'; ctx.lineWidth = penalised ? 3 : 1;
    if (penalised) ctx.setLineDash([3, 2]);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.beginPath(); ctx.moveTo(px(pose.x), py(pose.y));
    ctx.lineTo(px(pose.x + 0.3 * Math.cos(pose.h)), py(pose.y + 0.3 * Math.sin(pose.h)));
    ctx.strokeStyle = '#000'; ctx.lineWidth = 3; ctx.stroke();
    ctx.strokeStyle = r.color; ctx.lineWidth = 1.5; ctx.stroke();
    const p = r.state.robot ? r.state.robot.player : '?';
    ctx.fillStyle = '#fff'; ctx.font = 'bold 12px system-ui, sans-serif';
    ctx.fillText(String(p) + (penalised ? ' P' : ''), px(pose.x) + rad + 2, py(pose.y) - rad - 2);
    // a point inside the disc, behind the heading line, for tests
    const bx = px(pose.x) - 0.6 * rad * Math.cos(pose.h), by = py(pose.y) + 0.6 * rad * Math.sin(pose.h);
    return { endpoint: r.endpoint, team: teamOf(r), player: p, color: r.color, penalised,
      x: pose.x, y: pose.y, h: pose.h, cx: bx, cy: by };
  }

  // drawTruth draws the simulator's ground truth: the robot's pose and
  // the ball, which it returns (null if none).
  function drawTruth(r, st) {
    const gt = value(st, 'ground_truth');
    if (!gt) return null;
    const p = get(gt, 'Pose');
    const tp = mirrorPose(r, { x: num(get(p, 'X')), y: num(get(p, 'Y')), h: num(get(p, 'Heading')) });
    const x = tp.x, y = tp.y, h = tp.h;
    if (truthy(get(gt, 'Valid')) && finite(x, y, h)) {
      ctx.setLineDash([3, 3]);
      ctx.strokeStyle = 'rgba(255,255,255,0.8)'; ctx.lineWidth = 1.5;
      ctx.beginPath(); ctx.arc(px(x), py(y), 0.17 * view.s, 0, 2 * Math.PI); ctx.stroke();
      line(x, y, x + 0.3 * Math.cos(h), y + 0.3 * Math.sin(h));
      ctx.setLineDash([]);
    }
    const b = mirror(r, vec(get(gt, 'Ball')));
    if (b && truthy(get(gt, 'BallValid'))) {
      ctx.setLineDash([2, 2]); ctx.strokeStyle = 'rgba(255,255,255,0.8)';
      ctx.beginPath(); ctx.arc(px(b.x), py(b.y), Math.max(4, 0.06 * view.s), 0, 2 * Math.PI); ctx.stroke();
      ctx.setLineDash([]);
      return b;
    }
    return null;
  }

  function drawBall(r, st, pose, f) {
    const b = value(st, 'ball');
    let drawn = false;
    if (b && truthy(get(b, 'Valid')) && truthy(get(b, 'FieldValid'))) {
      const p = mirror(r, vec(get(b, 'FieldPos')));
      if (p) {
        const lost = truthy(get(b, 'Lost'));
        const cov = matrix(get(b, 'Cov'), 2);
        const sure = cov && pose ? ellipse(p.x, p.y, rotateCov(cov, pose.h), 'rgba(255,140,0,0.9)', 'rgba(255,140,0,0.15)') : true;
        ctx.beginPath(); ctx.arc(px(p.x), py(p.y), Math.max(5, f.ball_radius * view.s * 1.5), 0, 2 * Math.PI);
        ctx.fillStyle = lost || !sure ? 'rgba(255,140,0,0.35)' : '#ff8c00'; ctx.fill();
        ctx.strokeStyle = r.color; ctx.lineWidth = 2; ctx.stroke();
        drawn = true;
      }
    }
    const tb = value(st, 'team_ball');
    if (tb && truthy(get(tb, 'Valid'))) {
      const p = mirror(r, vec(get(tb, 'Pos')));
      if (p) {
        ctx.beginPath(); ctx.arc(px(p.x), py(p.y), Math.max(8, 0.12 * view.s), 0, 2 * Math.PI);
        ctx.strokeStyle = '#ff8c00'; ctx.lineWidth = 1.5; ctx.setLineDash([4, 3]); ctx.stroke(); ctx.setLineDash([]);
      }
    }
    return drawn;
  }

  function drawVision(r, st, pose) {
    if (!pose || !r.lastVision) return;
    if (Math.abs(st.time_ns - r.lastVision.time) > 500e6) return;
    const obs = get(r.lastVision.obs, 'Obs');
    const n = num(get(r.lastVision.obs, 'N'));
    if (!Array.isArray(obs)) return;
    const cs = Math.cos(pose.h), sn = Math.sin(pose.h);
    for (const o of obs.slice(0, Number.isFinite(n) ? n : obs.length)) {
      const p = vec(get(o, 'Pos'));
      if (!p) continue;
      const x = pose.x + cs * p.x - sn * p.y, y = pose.y + sn * p.x + cs * p.y;
      const kind = get(o, 'Kind');
      ctx.strokeStyle = kind === 1 || kind === 'ball' ? 'rgba(255,160,0,0.6)' : 'rgba(255,255,255,0.18)';
      ctx.lineWidth = 1;
      line(pose.x, pose.y, x, y);
    }
  }

  function draw() {
    const f = fieldOf();
    const game = gameOf();
    layout(f);
    drawField(f, game);
    let drawnRobots = 0, grid = null, gridFlip = false, targets = 0, ball = false, balls = 0, trueBall = null;
    const drawn = [];
    const poses = robots.map((r) => (r.state ? mirrorPose(r, poseOf(r.state)) : null));
    // the grid: the selected robot's, else the first robot's that has one
    const order = [selected, ...robots.keys()].filter((i, k, a) => a.indexOf(i) === k);
    const searches = robots.map((r) => (r.state ? searchOf(value(r.state, 'search'), f) : null));
    for (const i of order) {
      if (searches[i] && searches[i].grid) { grid = searches[i].grid; gridFlip = robots[i].flip; break; }
    }
    if (grid) drawGrid(grid, gridFlip);
    robots.forEach((r) => {
      const b = r.state ? drawTruth(r, r.state) : null;
      if (b && !trueBall) trueBall = b;
    });
    robots.forEach((r, i) => { if (r.state) drawVision(r, r.state, poses[i]); });
    // search targets: arrows from the robot of the same team with the
    // target's player number
    const byPlayer = new Map();
    robots.forEach((r, i) => { if (r.state && r.state.robot) byPlayer.set(`${teamOf(r)}/${r.state.robot.player}`, i); });
    const seen = new Set();
    robots.forEach((r, i) => {
      const s = searches[i];
      if (!s) return;
      for (const tg of s.targets) {
        const t = { player: tg.player, pos: mirror(r, tg.pos) };
        const owner = t.player === 0 ? i : byPlayer.get(`${teamOf(r)}/${t.player}`);
        const key = owner === undefined ? `p${teamOf(r)}/${t.player}` : owner;
        if (seen.has(key) && owner !== i) continue;
        seen.add(key);
        const from = owner === undefined ? null : poses[owner];
        const color = owner === undefined ? palette[(t.player + 3) % palette.length] : robots[owner].color;
        if (from) arrow(from.x, from.y, t.pos.x, t.pos.y, color);
        else { ctx.strokeStyle = color; ctx.beginPath(); ctx.arc(px(t.pos.x), py(t.pos.y), 6, 0, 2 * Math.PI); ctx.stroke(); }
        targets++;
      }
    });
    robots.forEach((r, i) => {
      if (!r.state) return;
      if (drawBall(r, r.state, poses[i], f)) { ball = true; balls++; }
    });
    robots.forEach((r, i) => {
      if (poses[i]) { drawn.push(drawRobot(r, poses[i])); drawnRobots++; }
    });
    dbg.frames++;
    dbg.robotsDrawn = drawnRobots;
    dbg.gridDrawn = !!grid;
    dbg.gridCells = grid ? grid.cols * grid.rows : 0;
    dbg.targetsDrawn = targets;
    dbg.ballDrawn = ball;
    dbg.ballsDrawn = balls;
    dbg.trueBall = trueBall;
    dbg.drawn = drawn;
    dbg.teams = game.teams.map((t) => ({ team: t.team, name: t.name, colour: t.colour, left: t.isLeft,
      players: t.robots.map((r) => (r.state.robot ? r.state.robot.player : 0)) }));
    dbg.mode = robots[0] && robots[0].state ? robots[0].state.mode : null;
    document.body.dataset.robotsDrawn = String(drawnRobots);
    document.body.dataset.gridDrawn = grid ? '1' : '0';
    document.body.dataset.teamsDrawn = String(new Set(drawn.map((d) => d.team)).size);
    legend(grid);
    updateGame(game);
  }

  function legend(grid) {
    const items = robots.map((r) => {
      const why = r.err && !r.state ? ' (unreachable)' : r.state && !poseOf(r.state) ? ' (not localised)' : '';
      return `<span><span class="sw" style="background:${r.color}"></span>${esc(r.label() + why)}</span>`;
    });
    items.push('<span>ellipses: 95%</span><span>dashed: ground truth</span><span>◯ dashed: team ball</span>');
    if (grid) items.push(`<span>search grid ${grid.cols}×${grid.rows}, ball probability against a uniform grid: <span style="color:hsl(210,70%,65%)">less likely</span> · <span style="color:hsl(0,0%,80%)">as likely</span> · <span style="color:hsl(20,90%,60%)">more likely</span></span>`);
    const html = items.join('');
    if ($('legend').innerHTML !== html) $('legend').innerHTML = html;
  }

  // ---------- side panels

  function esc(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  }
  function setText(id, s) { const el = $(id); if (el.textContent !== s) el.textContent = s; }
  function setHTML(id, s) { const el = $(id); if (el.innerHTML !== s) el.innerHTML = s; }

  function buildTabs() {
    const nav = $('tabs');
    nav.textContent = '';
    robots.forEach((r, i) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.addEventListener('click', () => { selected = i; changed(); });
      nav.appendChild(b);
    });
  }

  function updateTabs() {
    const nav = $('tabs');
    robots.forEach((r, i) => {
      const b = nav.children[i];
      if (!b) return;
      const html = `<span class="sw" style="background:${r.color}"></span>${esc(r.label())}`;
      if (b.innerHTML !== html) b.innerHTML = html;
      b.className = (i === selected ? 'sel ' : '') + (r.err ? 'err' : '');
      b.title = r.err || r.endpoint;
    });
  }

  function fmtMs(s) { return Number.isFinite(s) ? (s * 1000).toFixed(s < 0.001 ? 3 : 2) + ' ms' : '–'; }
  function fmtNs(ns) {
    const ms = ns / 1e6;
    if (Math.abs(ms) < 1000) return Math.round(ms) + ' ms';
    return (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + ' s';
  }

  function updateBehaviour(st) {
    const role = value(st, 'role');
    setText('role', role === undefined ? '– (no behaviour.role entry)' : nameOf(role));
    const path = pathOf(value(st, 'path'));
    const html = path.length ? path.map((p) => `<span class="chip">${esc(p)}</span>`).join('<span class="sep">›</span>') : '– (no behaviour.path entry)';
    if ($('path').innerHTML !== html) $('path').innerHTML = html;
    const m = value(st, 'motion');
    setText('motion', m ? `${nameOf(get(m, 'Active'))}${truthy(get(m, 'Settled')) ? ' (settled)' : ''}` : '–');
    const pose = poseOf(st);
    setText('pose', pose ? `x ${pose.x.toFixed(2)} m, y ${pose.y.toFixed(2)} m, θ ${(pose.h * 180 / Math.PI).toFixed(0)}°` +
      (Number.isFinite(pose.conf) ? `, confidence ${pose.conf.toFixed(2)}` : '') : 'not localised');
    const b = value(st, 'ball');
    if (!b || !truthy(get(b, 'Valid'))) setText('ball', 'never seen');
    else {
      const p = vec(get(b, 'Pos'));
      const since = get(b, 'SinceSeen');
      setText('ball', (p ? `${Math.hypot(p.x, p.y).toFixed(2)} m away` : '') +
        (truthy(get(b, 'Lost')) ? ', lost' : truthy(get(b, 'Seen')) ? ', seen' : '') +
        (since !== undefined ? `, since seen ${typeof since === 'number' ? fmtNs(since) : since}` : ''));
    }
  }

  function delta(cur, base) {
    const dc = cur.count - (base ? base.count : 0);
    const ds = num(cur.sum) - (base ? num(base.sum) : 0);
    let p95 = NaN;
    if (dc > 0) {
      for (let i = 0; i < cur.buckets.length; i++) {
        const prev = base && base.buckets[i] ? base.buckets[i][1] : 0;
        if (cur.buckets[i][1] - prev >= 0.95 * dc) { p95 = cur.buckets[i][0]; break; }
      }
      if (!Number.isFinite(p95)) p95 = Infinity;
    }
    return { n: dc, mean: dc > 0 ? ds / dc : NaN, p95 };
  }

  function updateTimings(r) {
    const body = $('timings-body');
    const st = r.state;
    if (!st.timings) {
      setText('timings-note', st.mode === 'replay' ? '(not recorded)' : '(no metrics)');
      body.textContent = '';
      return;
    }
    const cur = st.timings, base = r.hist.length > 1 ? r.hist[0].timings : null;
    setText('timings-note', base ? `(last ${((r.hist[r.hist.length - 1].t - r.hist[0].t) / 1000).toFixed(1)} s)` : '(since start)');
    const rows = [];
    const tick = delta(cur.tick, base && base.tick);
    rows.push({ name: 'tick (all)', d: tick, over: cur.tick_overruns, err: '' });
    for (const m of cur.modules) {
      const bm = base && base.modules.find((x) => x.module === m.module);
      rows.push({ name: m.module, d: delta(m.seconds, bm && bm.seconds), over: m.overruns, err: m.errors });
    }
    const maxMean = Math.max(1e-4, ...rows.map((x) => (Number.isFinite(x.d.mean) ? x.d.mean : 0)));
    const html = rows.map((x) => {
      const w = Number.isFinite(x.d.mean) ? Math.round(100 * x.d.mean / maxMean) : 0;
      const p95 = x.d.p95 === Infinity ? '> max' : fmtMs(x.d.p95);
      return `<tr><td>${esc(x.name)}</td><td>${fmtMs(x.d.mean)}</td><td>${p95}</td>` +
        `<td class="bar"><div class="${x.over > 0 ? 'over' : ''}" style="width:${w}%"></div></td>` +
        `<td>${x.over}</td><td>${x.err}</td></tr>`;
    }).join('');
    if (body.innerHTML !== html) body.innerHTML = html;
  }

  const expanded = new Set();
  let boardRows = new Map();
  let boardOwner = null;
  $('board-filter').addEventListener('input', () => changed());

  function updateBoard(r) {
    const st = r.state;
    const body = $('board-body');
    if (boardOwner !== r) { body.textContent = ''; boardRows = new Map(); boardOwner = r; }
    const filter = $('board-filter').value.trim().toLowerCase();
    const names = Object.keys(st.entries).sort();
    setText('board-note', `(${names.length} entries, tick ${st.tick})`);
    for (const name of names) {
      const e = st.entries[name];
      let row = boardRows.get(name);
      if (!row) {
        row = document.createElement('tr');
        row.innerHTML = '<td></td><td class="age"></td><td class="val"></td>';
        row.children[0].innerHTML = `${esc(name)}<span class="type">${esc(e.type)} · ${esc(e.writer || 'no writer')}</span>`;
        row.children[2].addEventListener('click', () => {
          if (expanded.has(name)) expanded.delete(name); else expanded.add(name);
          row.dataset.v = '';
          changed();
        });
        boardRows.set(name, row);
        body.appendChild(row);
      }
      const show = !filter || name.toLowerCase().includes(filter) || (e.type || '').toLowerCase().includes(filter);
      row.hidden = !show;
      if (!show) continue;
      const age = row.children[1];
      if (e.tick === 0) { age.textContent = 'never'; age.className = 'age never'; } else {
        const dt = st.tick - e.tick;
        age.textContent = dt === 0 ? 'this tick' : `${fmtNs(st.time_ns - e.time_ns)} (${dt} tick${dt === 1 ? '' : 's'})`;
        age.className = 'age' + (dt === 0 ? ' fresh' : '');
      }
      row.className = e.error ? 'err' : '';
      const val = row.children[2];
      const key = `${e.tick}:${expanded.has(name)}`;
      if (row.dataset.v === key) continue;
      row.dataset.v = key;
      if (e.error) { val.textContent = 'undecodable: ' + e.error; continue; }
      // Collapsed: one line, cut by the cell's width; a click shows the
      // whole value, pretty-printed, and another folds it again.
      if (expanded.has(name)) {
        val.title = 'click to fold';
        val.innerHTML = `<pre class="whole">${esc(JSON.stringify(e.value, null, 2))}</pre>`;
      } else {
        val.title = 'click to show the whole value';
        val.innerHTML = `<div class="one">${esc(JSON.stringify(e.value))}</div>`;
      }
    }
    for (const [name, row] of boardRows) {
      if (!(name in st.entries)) { row.remove(); boardRows.delete(name); }
    }
  }

  function updateStatus() {
    const live = robots.filter((r) => r.state);
    const bad = robots.filter((r) => r.err);
    const el = $('status');
    const r = robots[selected];
    let s = '';
    if (r && r.state) {
      const st = r.state;
      s = `${r.label()} · ${st.mode} · tick ${st.tick} · t=${(st.time_ns / 1e9).toFixed(2)} s`;
      if (st.replay) s += ` · session ${st.replay.session}${st.replay.truncated ? ' (truncated)' : ''}`;
    } else s = 'waiting for state…';
    if (bad.length) s += ` · ${bad.map((x) => `${x.endpoint}: ${x.err}`).join('; ')}`;
    if (notice) s += ` · ${notice}`;
    el.textContent = s;
    el.className = 'status' + (bad.length || notice ? ' bad' : '');
    if (replay.on) {
      const st = robots.find((x) => x.state && x.state.replay);
      if (st) {
        const rp = st.state.replay;
        setText('rp-label', `tick ${st.state.tick} (${rp.first}…${rp.last}), record ${rp.index + 1}/${rp.records}` +
          (rp.stride > 1 ? `, every ${rp.stride}th` : ''));
      }
    }
    return live.length;
  }

  // ---------- render loop: at most one frame per animation frame, only when something changed

  let dirty = false, lastPanels = 0, panelTimer = 0;
  function changed() {
    if (dirty) return;
    dirty = true;
    requestAnimationFrame(render);
  }
  function render(now) {
    dirty = false;
    if (selected >= robots.length) selected = 0;
    draw();
    updateTabs();
    updateStatus();
    const r = robots[selected];
    // the panels at most 5 times a second; the field every frame
    if (r && r.state) {
      if (now - lastPanels > 200 || replay.on) {
        lastPanels = now;
        updateBehaviour(r.state);
        updateTimings(r);
        updateBoard(r);
      } else if (!panelTimer) {
        panelTimer = setTimeout(() => { panelTimer = 0; changed(); }, 200);
      }
    }
  }
  window.addEventListener('resize', changed);

  $('robots-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const eps = endpointsOf($('robots-input').value, false).endpoints;
    const u = new URL(location.href);
    u.searchParams.set('robots', eps.join(','));
    u.searchParams.delete('discover');
    u.searchParams.delete('game');
    history.replaceState(null, '', u);
    setRobots(eps.length ? eps : ['self']);
  });
  $('discover-btn').addEventListener('click', () => runDiscover(''));

  async function runDiscover(spec) {
    let teams = spec.split(',').map((s) => s.trim()).filter((s) => s !== '').map(Number)
      .filter((n) => Number.isInteger(n) && n >= 0 && n < 100);
    if (!teams.length) {
      let self = robots.find((r) => r.endpoint === 'self');
      if (self && !self.state) await self.fetchState();
      teams = [self && self.state && self.state.robot ? self.state.robot.team : 1];
    }
    setText('status', `discovering teams ${teams.join(', ')}…`);
    const found = await discover(teams);
    setRobots(['self', ...found]);
  }

  // runGame shows a whole game: ?game= lists its robots (see endpointsOf).
  async function runGame(spec) {
    const g = endpointsOf(spec, true);
    if (g.bad.length) notice = `?game=: cannot read ${g.bad.join(', ')}`;
    setRobots(g.endpoints);
    if (!g.teams.length) return;
    setText('status', `discovering teams ${g.teams.join(', ')}…`);
    const found = await discover(g.teams, true);
    setRobots([...g.endpoints, ...found.filter((e) => !g.endpoints.includes(e))]);
  }

  if (params.has('game')) runGame(params.get('game') || '');
  else {
    setRobots(endpointsFromParams());
    if (params.has('discover')) runDiscover(params.get('discover') || '');
  }
  changed();
})();
