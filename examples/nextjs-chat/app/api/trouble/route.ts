// The demo's trouble switch: what goes wrong with the next answer (../../../../shared/trouble.ts).
import { isTrouble, troubleProblem } from '../../../../shared/trouble';
import { demo } from '../../../lib/demo';

export const dynamic = 'force-dynamic';

export const GET = () => Response.json({ trouble: demo.trouble });

export async function PUT(request: Request): Promise<Response> {
  const body = (await request.json().catch(() => ({}))) as { trouble?: unknown };
  if (!isTrouble(body.trouble)) return troubleProblem();
  demo.trouble = body.trouble;
  return Response.json({ trouble: demo.trouble });
}
