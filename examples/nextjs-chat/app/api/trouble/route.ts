// The demo's trouble switch: the next answer's stream is cut, or its model breaks.
import { demo } from '../../../lib/demo';

export const dynamic = 'force-dynamic';

export const GET = () => Response.json({ trouble: demo.trouble });

export async function PUT(request: Request): Promise<Response> {
  const body = (await request.json().catch(() => ({}))) as { trouble?: unknown };
  if (body.trouble !== 'none' && body.trouble !== 'cut' && body.trouble !== 'break') {
    return Response.json({ title: '`trouble` must be "none", "cut" or "break".' }, { status: 400 });
  }
  demo.trouble = body.trouble;
  return Response.json({ trouble: demo.trouble });
}
