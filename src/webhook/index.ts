/**
 * The webhook server: verifies Git provider events and refreshes the ApplicationSets they can affect.
 */
export {};
