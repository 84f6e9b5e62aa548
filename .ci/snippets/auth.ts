// The stand-in for a snippet's `./auth`: the user's own auth, which the docs cannot know.

/** The signed-in user of a request (a session cookie, a verified token), if any. */
export declare function currentUser(request: Request): Promise<{ id: string } | undefined>;
