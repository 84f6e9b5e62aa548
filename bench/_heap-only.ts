import { heapPerStream } from './stream-heap.js';
import { closeRedis } from './stream-rig.js';

console.log(JSON.stringify(await heapPerStream()));
await closeRedis();
