(function () {
  'use strict';
  var list = document.getElementById('transcript');
  if (!list) return;
  var base = list.getAttribute('data-base') || '';
  var meeting = list.getAttribute('data-meeting');
  var url = base + '/meetings/' + encodeURIComponent(meeting) + '/sentences';

  function clock(seconds) {
    var s = Math.max(0, Math.floor(seconds)),
      h = Math.floor(s / 3600),
      m = Math.floor((s % 3600) / 60),
      sec = String(s % 60).padStart(2, '0');
    return h > 0 ? h + ':' + String(m).padStart(2, '0') + ':' + sec : m + ':' + sec;
  }

  function item(s) {
    var li = document.createElement('li');
    li.id = 's-' + s.index;
    li.setAttribute('data-start', String(s.start_time));
    var a = document.createElement('a');
    a.className = 'time';
    a.href = '#t=' + Math.floor(s.start_time);
    a.textContent = clock(s.start_time);
    var who = document.createElement('span');
    who.className = 'speaker';
    who.textContent = s.speaker_name;
    var p = document.createElement('p');
    p.textContent = s.text;
    li.appendChild(a);
    li.appendChild(document.createTextNode(' '));
    li.appendChild(who);
    li.appendChild(p);
    return li;
  }

  function load(params) {
    return fetch(url + '?' + new URLSearchParams(params), {
      credentials: 'same-origin',
      headers: { accept: 'application/json' },
    }).then(function (r) {
      if (!r.ok) throw new Error('HTTP ' + r.status);
      return r.json();
    });
  }

  function append(page) {
    page.sentences.forEach(function (s) {
      var existing = document.getElementById('s-' + s.index);
      if (existing) existing.replaceWith(item(s));
      else list.appendChild(item(s));
    });
    list.setAttribute('data-next', page.next_index === null ? '' : String(page.next_index));
    var more = document.getElementById('more');
    if (more && page.next_index === null) more.remove();
  }

  function replace(page) {
    list.textContent = '';
    append(page);
  }

  var more = document.getElementById('more');
  if (more) {
    more.addEventListener('click', function (e) {
      var next = list.getAttribute('data-next');
      if (!next) return;
      e.preventDefault();
      load({ from: next })
        .then(append)
        .catch(function () {
          window.location.href = more.href;
        });
    });
  }

  function sentenceAt(seconds) {
    var items = list.querySelectorAll('li[data-start]'),
      found = null;
    for (var i = 0; i < items.length; i++) {
      if (Number(items[i].getAttribute('data-start')) <= seconds) found = items[i];
      else break;
    }
    return found;
  }

  function show(el) {
    var current = list.querySelector('li.current');
    if (current) current.classList.remove('current');
    el.classList.add('current');
    el.setAttribute('tabindex', '-1');
    el.scrollIntoView({ block: 'center' });
    el.focus({ preventScroll: true });
  }

  function goToHash() {
    var m = /^#t=(\d+(?:\.\d+)?)$/.exec(window.location.hash);
    if (!m) return;
    var seconds = Number(m[1]);
    var first = list.querySelector('li[data-start]');
    var next = list.getAttribute('data-next');
    var inWindow =
      first &&
      Number(first.getAttribute('data-start')) <= seconds &&
      (!next ||
        (function () {
          var last = list.querySelector('li[data-start]:last-child');
          return last && Number(last.getAttribute('data-start')) >= seconds;
        })());
    if (inWindow) {
      var el = sentenceAt(seconds);
      if (el) show(el);
      return;
    }
    load({ at: String(seconds) }).then(function (page) {
      replace(page);
      var el = sentenceAt(seconds);
      if (el) show(el);
    });
  }
  window.addEventListener('hashchange', goToHash);
  goToHash();

  if (list.getAttribute('data-live') === 'true') {
    var poll = function () {
      var count = list.querySelectorAll('li[data-start]').length;
      var last = list.querySelector('li[data-start]:last-child');
      var from = last ? Number(last.id.slice(2)) + 1 : 0;
      load({ from: String(from) })
        .then(function (page) {
          if (page.sentences.length) append(page);
          if (page.is_live) setTimeout(poll, 2000);
          else if (count !== list.querySelectorAll('li[data-start]').length || !page.is_live) {
            var badge = document.querySelector('.notice');
            if (badge) badge.textContent = 'This meeting has ended.';
          }
        })
        .catch(function () {
          setTimeout(poll, 5000);
        });
    };
    setTimeout(poll, 2000);
  }
})();
