"""Discord components: DynamicItem buttons, view builders, custom_id templates."""
