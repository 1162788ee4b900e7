help show
