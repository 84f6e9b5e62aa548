// The footer's counters: model calls (what you pay for), intents, requests.
import { stats } from '../../../lib/demo';

export const dynamic = 'force-dynamic';

export const GET = () => Response.json(stats());
