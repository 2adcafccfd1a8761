/* Inside an iframe: tells the parent page the content height, so it can size the frame:
   window.addEventListener('message', (e) => {
     if (e.data && e.data.type === 'booking-widget:height') frame.style.height = e.data.height + 'px';
   }); */
(() => {
  'use strict';
  if (window.parent === window || typeof ResizeObserver !== 'function') return;
  let last = 0;
  new ResizeObserver(() => {
    const height = Math.ceil(document.documentElement.scrollHeight);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: 'booking-widget:height', height: height }, '*');
  }).observe(document.documentElement);
})();
