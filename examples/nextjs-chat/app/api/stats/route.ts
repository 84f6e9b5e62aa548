// The footer's counters: model calls (what you pay for), calls and tokens avoided, intents, requests.
import { stats } from '../../../lib/demo';

export const dynamic = 'force-dynamic';

export const GET = async () => Response.json(await stats());
