// ECharts (from its WebJar) on an element of the page: one instance per element, resized with the
// window, disposed with the view.

import * as echarts from './lib/echarts/${echarts.version}/dist/echarts.esm.min.js';

export function chart(element) {
  const instance = echarts.init(element);
  const resize = () => instance.resize();
  window.addEventListener('resize', resize);
  return {
    instance,
    dispose() {
      window.removeEventListener('resize', resize);
      instance.dispose();
    },
  };
}
