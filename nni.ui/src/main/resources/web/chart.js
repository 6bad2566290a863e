// ECharts (from its WebJar) on an element of the page: one instance per element, resized with the
// window, disposed with the view; in ECharts' dark theme when the system asks for dark colours (the
// page follows it too, style.css), its background left to the card behind it.

import * as echarts from './lib/echarts/${echarts.version}/dist/echarts.esm.min.js';

export const DARK = window.matchMedia('(prefers-color-scheme: dark)');

export function chart(element) {
  const instance = echarts.init(element, DARK.matches ? 'dark' : null);
  const resize = () => instance.resize();
  window.addEventListener('resize', resize);
  return {
    instance,
    /** Sets the chart's option as ECharts does, on the page's own background. */
    set(option, settings) {
      instance.setOption({ backgroundColor: 'transparent', ...option }, settings);
    },
    dispose() {
      window.removeEventListener('resize', resize);
      instance.dispose();
    },
  };
}
